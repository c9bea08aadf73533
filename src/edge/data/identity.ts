import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { IdempotencyHeaderSchema, text } from "../../contract/common";
import {
  LinkInputSchema,
  LinkSchema,
  MergeSchema,
  SuggestionPageSchema,
  SuggestionQuerySchema,
  SuggestionSchema,
} from "../../contract/identity";
import { problems } from "../../contract/problem";
import { type BodyInput, readJsonBody } from "../../http/body";
import { unwrap } from "../../http/problem";
import type { AppEnv } from "../context";
import { documentedRoute } from "../documented-route";
import { idempotencyOf } from "../idempotency";
import { dataRequest } from "./space";

const IDENTITY_BODY_LIMIT = 16 * 1024;

const undoRoute = createRoute({
  method: "post",
  path: "/v1/identity/merges/{merge_id}/undo",
  summary: "Undo a merge",
  description:
    "Splits a merge back exactly: both profiles get back their handles, and events follow their handles. A person with role `review`; a source key is `403 forbidden`. Undoing an undone merge answers it as it is.",
  security: [{ personToken: [] }],
  request: { params: z.object({ merge_id: text(1, 128) }), headers: IdempotencyHeaderSchema },
  responses: {
    200: { description: "The merge, now undone.", content: { "application/json": { schema: MergeSchema } } },
    ...problems(401, 403, 404, 409, 422, 429, 500, 503),
  },
});

const linkRoute = createRoute({
  method: "post",
  path: "/v1/identity/links",
  summary: "Link a person to an account or partner",
  description:
    "Each side is a handle (a profile is created for an unknown one) or a profile id. The link is `active` until ended. Source key with scope `identify`, or a person with role `review`.",
  security: [{ sourceKey: [] }, { personToken: [] }],
  request: {
    headers: IdempotencyHeaderSchema,
    body: { content: { "application/json": { schema: LinkInputSchema } }, required: true },
  },
  responses: {
    201: { description: "The link.", content: { "application/json": { schema: LinkSchema } } },
    ...problems(401, 403, 404, 409, 422, 429, 500, 503),
  },
});

const endLinkRoute = createRoute({
  method: "post",
  path: "/v1/identity/links/{link_id}/end",
  summary: "End a link",
  description: "Ending an ended link answers it as it is. Source key with scope `identify`, or a person with role `review`.",
  security: [{ sourceKey: [] }, { personToken: [] }],
  request: { params: z.object({ link_id: text(1, 128) }), headers: IdempotencyHeaderSchema },
  responses: {
    200: { description: "The link, ended.", content: { "application/json": { schema: LinkSchema } } },
    ...problems(401, 403, 404, 409, 422, 429, 500, 503),
  },
});

const listSuggestionsRoute = createRoute({
  method: "get",
  path: "/v1/identity/suggestions",
  summary: "List identity suggestions",
  description:
    "Candidate pairs of profiles found offline (a shared name, a shared postal code, handles met in one event), never applied without a person. Filter by `status`. Source key with scope `identify`, or a person with role `review`; identifiers masked as in the profile read.",
  security: [{ sourceKey: [] }, { personToken: [] }],
  request: { query: SuggestionQuerySchema },
  responses: {
    200: {
      description: "A page of suggestions.",
      content: { "application/json": { schema: SuggestionPageSchema } },
    },
    ...problems(401, 403, 422, 429, 500, 503),
  },
});

const SuggestionParamsSchema = z.object({ suggestion_id: text(1, 128) });

const dismissRoute = createRoute({
  method: "post",
  path: "/v1/identity/suggestions/{suggestion_id}/dismiss",
  summary: "Dismiss a suggestion",
  description:
    "The suggestion becomes `rejected`; the pair does not come back on the same evidence (new evidence may bring it back). No body. Source key with scope `identify`, or a person with role `review`.",
  security: [{ sourceKey: [] }, { personToken: [] }],
  request: { params: SuggestionParamsSchema, headers: IdempotencyHeaderSchema },
  responses: {
    200: { description: "The suggestion, `rejected`.", content: { "application/json": { schema: SuggestionSchema } } },
    ...problems(401, 403, 404, 409, 422, 429, 500, 503),
  },
});

const acceptRoute = createRoute({
  method: "post",
  path: "/v1/identity/suggestions/{suggestion_id}/accept",
  summary: "Accept a suggestion",
  description:
    "The two profiles merge (method `review`; the merge can be undone). A person with role `review`; a source key is `403 forbidden`.",
  security: [{ personToken: [] }],
  request: { params: SuggestionParamsSchema, headers: IdempotencyHeaderSchema },
  responses: {
    200: { description: "The suggestion, `accepted`.", content: { "application/json": { schema: SuggestionSchema } } },
    ...problems(401, 403, 404, 409, 422, 429, 500, 503),
  },
});

export const identityRoutes = new OpenAPIHono<AppEnv>();

/** The request's `Idempotency-Key` (checked by the object after the credential) with the hash of what it asks. */
function keyOf(c: Context<AppEnv>, body?: BodyInput) {
  return idempotencyOf(c, c.req.header("idempotency-key") ?? "", body?.status === "ok" ? body.text : "");
}

documentedRoute(identityRoutes, listSuggestionsRoute, async (c) => {
  const { space, credential } = await dataRequest(c);
  const query = SuggestionQuerySchema.parse(c.req.query());
  return c.json(unwrap(await space.listSuggestions(credential, query)), 200);
});

documentedRoute(identityRoutes, dismissRoute, async (c) => {
  const { space, credential, requestId } = await dataRequest(c);
  const idempotency = await keyOf(c);
  const id = c.req.param("suggestion_id") ?? "";
  return c.json(unwrap(await space.dismissSuggestion(credential, id, idempotency, requestId)), 200);
});

documentedRoute(identityRoutes, acceptRoute, async (c) => {
  const { space, credential, requestId } = await dataRequest(c);
  const idempotency = await keyOf(c);
  const id = c.req.param("suggestion_id") ?? "";
  return c.json(unwrap(await space.acceptSuggestion(credential, id, idempotency, requestId)), 200);
});

documentedRoute(identityRoutes, undoRoute, async (c) => {
  const { space, credential, requestId } = await dataRequest(c);
  const idempotency = await keyOf(c);
  return c.json(unwrap(await space.undoMerge(credential, c.req.param("merge_id") ?? "", idempotency, requestId)), 200);
});

documentedRoute(identityRoutes, linkRoute, async (c) => {
  const { space, credential } = await dataRequest(c);
  const body = await readJsonBody(c.req.raw, IDENTITY_BODY_LIMIT);
  const idempotency = await keyOf(c, body);
  return c.json(unwrap(await space.createLink(credential, body, idempotency)), 201);
});

documentedRoute(identityRoutes, endLinkRoute, async (c) => {
  const { space, credential } = await dataRequest(c);
  const idempotency = await keyOf(c);
  return c.json(unwrap(await space.endLink(credential, c.req.param("link_id") ?? "", idempotency)), 200);
});
