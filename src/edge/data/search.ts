import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { text } from "../../contract/common";
import { problems } from "../../contract/problem";
import { ProfileSearchQuerySchema, SearchInputSchema, SearchPageSchema } from "../../contract/search";
import { readJsonBody } from "../../http/body";
import { unwrap } from "../../http/problem";
import type { AppEnv } from "../context";
import { documentedRoute } from "../documented-route";
import { dataRequest } from "./space";

export const SEARCH_BODY_LIMIT = 16 * 1024;

const ABOUT =
  "Full-text search over messages, transcripts, episode summaries and facts, best first (BM25), each result with a snippet whose matched words are between `**` and `**`. Messages and transcripts are searchable as soon as their batch is answered; episode summaries and facts once the compiler has compiled their session (about 200 ms later). Source key with scope `search`, or a person with role `review` (a `vendor` person: only what their bound sources wrote). Pages: `limit` (1 to 200, default 20) and `next_cursor`.";

const searchRoute = createRoute({
  method: "post",
  path: "/v1/search",
  summary: "Search memory",
  description: `${ABOUT} The whole space, or with \`handle\` the profile holding it and every profile merged into it; the query and the handle travel in the body (SPEC rule 7). An unknown handle is \`404\`, the same as one the caller may not see; a search creates nothing.`,
  security: [{ sourceKey: [] }, { personToken: [] }],
  request: { body: { content: { "application/json": { schema: SearchInputSchema } }, required: true } },
  responses: {
    200: { description: "A page of results.", content: { "application/json": { schema: SearchPageSchema } } },
    ...problems(401, 403, 404, 422, 429, 500, 503),
  },
});

const profileSearchRoute = createRoute({
  method: "get",
  path: "/v1/profiles/{id}/search",
  summary: "Search a profile's memory",
  description: `${ABOUT} One profile by id, with every profile merged into it (a merged-away id searches its survivor).`,
  security: [{ sourceKey: [] }, { personToken: [] }],
  request: { params: z.object({ id: text(1, 128) }), query: ProfileSearchQuerySchema },
  responses: {
    200: { description: "A page of results.", content: { "application/json": { schema: SearchPageSchema } } },
    ...problems(401, 403, 404, 422, 429, 500, 503),
  },
});

export const searchRoutes = new OpenAPIHono<AppEnv>();

documentedRoute(searchRoutes, searchRoute, async (c) => {
  const { space, credential, requestId } = await dataRequest(c);
  const body = await readJsonBody(c.req.raw, SEARCH_BODY_LIMIT);
  return c.json(unwrap(await space.search(credential, { body }, requestId)), 200);
});

documentedRoute(searchRoutes, profileSearchRoute, async (c) => {
  const { space, credential, requestId } = await dataRequest(c);
  const query = ProfileSearchQuerySchema.parse(c.req.query());
  return c.json(unwrap(await space.search(credential, { profileId: c.req.param("id") ?? "", query }, requestId)), 200);
});
