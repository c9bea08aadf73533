import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { ContextUseQuerySchema, ContextUseReportSchema } from "../../contract/measurement";
import { problems } from "../../contract/problem";
import { unwrap } from "../../http/problem";
import type { AppEnv } from "../context";
import { documentedRoute } from "../documented-route";
import { dataRequest } from "./space";

const contextUseRoute = createRoute({
  method: "get",
  path: "/v1/measurement/context-use",
  summary: "Whether agents read memory before they speak",
  description:
    "Agent turns (messages by an `ai_agent` or `human_agent`) per UTC day of their `occurred_at` and source, by their `context_stamp`: `current` (the etag the profile's context had at `injected_at`), `late` (an etag this space answered, but the profile had received newer items by `injected_at`), `unknown` (an etag never answered for the turn's profile) and `none` (no stamp). Counted when the batch is stored; duplicates and items of `test` keys do not count. Range: `from` to `to`, both included, at most 90 days (`to` defaults to today, `from` to 29 days before `to`); reversed or longer is `422`. Source key with scope `admin`, or a person with role `analysis` or `integration`.",
  security: [{ sourceKey: [] }, { personToken: [] }],
  request: { query: ContextUseQuerySchema },
  responses: {
    200: { description: "The counts.", content: { "application/json": { schema: ContextUseReportSchema } } },
    ...problems(401, 403, 422, 429, 500, 503),
  },
});

export const measurementRoutes = new OpenAPIHono<AppEnv>();

documentedRoute(measurementRoutes, contextUseRoute, async (c) => {
  const { space, credential } = await dataRequest(c);
  const query = ContextUseQuerySchema.parse(c.req.query());
  return c.json(unwrap(await space.contextUse(credential, query)), 200);
});
