import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { text } from "../../contract/common";
import { ContextAnswerSchema, ContextInputSchema, ContextSchema } from "../../contract/context";
import { problems } from "../../contract/problem";
import { readJsonBody } from "../../http/body";
import { matchesEtag } from "../../http/etag";
import { unwrap } from "../../http/problem";
import type { AppEnv } from "../context";
import { documentedRoute } from "../documented-route";
import { dataRequest } from "./space";

export const CONTEXT_BODY_LIMIT = 16 * 1024;

const ABOUT =
  "What an agent needs to know about a customer now: the profile, `live` (the events of its open sessions on every channel, there as soon as their batch is answered) and its compiled `memory` (facts, open items, promises, the latest 5 episodes, open objects) as it stands, with `compiled` saying how fresh it is: a read never waits for a compile. Source key with scope `context`, or a person with role `review`; identifiers masked as in the profile read.";

const contextRoute = createRoute({
  method: "post",
  path: "/v1/context",
  summary: "Context of a customer, by handle",
  description: `${ABOUT} The handle goes in the body (SPEC rule 7). \`known_etag\` equal to the current \`etag\` answers \`{unchanged: true, etag}\`. \`about\` names an account or partner the person acts for; without an active link it is \`422 about_without_link\`, the same whether or not the organization exists. An unknown handle is \`404\`; a read creates nothing.`,
  security: [{ sourceKey: [] }, { personToken: [] }],
  request: { body: { content: { "application/json": { schema: ContextInputSchema } }, required: true } },
  responses: {
    200: {
      description: "The context, or `{unchanged: true}`.",
      content: { "application/json": { schema: ContextAnswerSchema } },
    },
    ...problems(401, 403, 404, 422, 429, 500, 503),
  },
});

const profileContextRoute = createRoute({
  method: "get",
  path: "/v1/profiles/{id}/context",
  summary: "Context of a profile",
  description: `${ABOUT} A merged-away id answers the surviving profile. \`If-None-Match\` with the current ETag answers \`304\`.`,
  security: [{ sourceKey: [] }, { personToken: [] }],
  request: { params: z.object({ id: text(1, 128) }) },
  responses: {
    200: {
      description: "The context, with its `ETag`.",
      headers: z.object({ ETag: z.string() }),
      content: { "application/json": { schema: ContextSchema } },
    },
    304: { description: "Not modified: the ETag is current." },
    ...problems(401, 403, 404, 422, 429, 500, 503),
  },
});

export const contextRoutes = new OpenAPIHono<AppEnv>();

documentedRoute(contextRoutes, contextRoute, async (c) => {
  const { space, credential, requestId } = await dataRequest(c);
  const body = await readJsonBody(c.req.raw, CONTEXT_BODY_LIMIT);
  return c.json(unwrap(await space.readContext(credential, body, requestId)), 200);
});

documentedRoute(contextRoutes, profileContextRoute, async (c) => {
  const { space, credential, requestId } = await dataRequest(c);
  const context = unwrap(await space.profileContext(credential, c.req.param("id") ?? "", requestId));
  if (!("profile_id" in context)) throw new Error("a profile read has no known ETag to be unchanged against");
  if (matchesEtag(c.req.header("if-none-match"), context.etag)) return c.body(null, 304, { ETag: context.etag });
  return c.json(context, 200, { ETag: context.etag });
});
