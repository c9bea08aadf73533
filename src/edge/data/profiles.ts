import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { text } from "../../contract/common";
import { LookupInputSchema, ProfileSchema } from "../../contract/identity";
import { problems } from "../../contract/problem";
import { readJsonBody } from "../../http/body";
import { etagOf, matchesEtag } from "../../http/etag";
import { unwrap } from "../../http/problem";
import type { AppEnv } from "../context";
import { documentedRoute } from "../documented-route";
import { dataRequest } from "./space";

const LOOKUP_BODY_LIMIT = 16 * 1024;

const CREDENTIALS =
  "Source key with scope `context` or `identify`, or a person with role `review`, `security` or `vendor` (a `vendor` sees only what their sources wrote). Identifier values are whole for `admin`, `security` and keys with `identify`, masked for the others. A person's read is recorded in the audit log (`profile.read`, `profile.lookup`).";

const profileAnswers = {
  200: {
    description: "The profile, with an `ETag`.",
    headers: z.object({ ETag: z.string() }),
    content: { "application/json": { schema: ProfileSchema } },
  },
};

const readRoute = createRoute({
  method: "get",
  path: "/v1/profiles/{id}",
  summary: "Read a profile",
  description: `Handles, links and merges of a profile. A merged-away id answers the surviving profile (its \`profile_id\` says which). \`If-None-Match\` with the current ETag answers \`304\`. ${CREDENTIALS}`,
  security: [{ sourceKey: [] }, { personToken: [] }],
  request: { params: z.object({ id: text(1, 128) }) },
  responses: {
    ...profileAnswers,
    304: { description: "Not modified: the ETag is current." },
    ...problems(401, 403, 404, 422, 429, 500, 503),
  },
});

const lookupRoute = createRoute({
  method: "post",
  path: "/v1/profiles/lookup",
  summary: "Find the profile that holds a handle",
  description: `The handle goes in the body, never in the URL (SPEC rule 7). An unknown handle is \`404\` and creates nothing; a handle the caller may not see (a \`vendor\` person's, written only by sources outside the binding) is the same \`404\`, with the same \`detail\`. ${CREDENTIALS}`,
  security: [{ sourceKey: [] }, { personToken: [] }],
  request: { body: { content: { "application/json": { schema: LookupInputSchema } }, required: true } },
  responses: { ...profileAnswers, ...problems(401, 403, 404, 422, 429, 500, 503) },
});

export const profileRoutes = new OpenAPIHono<AppEnv>();

documentedRoute(profileRoutes, readRoute, async (c) => {
  const { space, credential, requestId } = await dataRequest(c);
  const profile = unwrap(await space.readProfile(credential, c.req.param("id") ?? "", requestId));
  const json = JSON.stringify(profile);
  const etag = await etagOf(json);
  if (matchesEtag(c.req.header("if-none-match"), etag)) return c.body(null, 304, { ETag: etag });
  return c.body(json, 200, { ETag: etag, "Content-Type": "application/json" });
});

documentedRoute(profileRoutes, lookupRoute, async (c) => {
  const { space, credential, requestId } = await dataRequest(c);
  const body = await readJsonBody(c.req.raw, LOOKUP_BODY_LIMIT);
  const json = JSON.stringify(unwrap(await space.lookupProfile(credential, body, requestId)));
  return c.body(json, 200, { ETag: await etagOf(json), "Content-Type": "application/json" });
});
