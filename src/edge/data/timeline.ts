import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { text } from "../../contract/common";
import { TimelineInputSchema, TimelinePageSchema, TimelineQuerySchema } from "../../contract/history";
import { problems } from "../../contract/problem";
import { readJsonBody } from "../../http/body";
import { unwrap } from "../../http/problem";
import type { AppEnv } from "../context";
import { documentedRoute } from "../documented-route";
import { dataRequest } from "./space";

export const TIMELINE_BODY_LIMIT = 16 * 1024;

const ABOUT =
  "A profile's events (with every profile merged into it), newest first by `occurred_at` (then arrival), `limit` (default 50, at most 100) a page. `next_cursor` continues below the page's last event: a page boundary never skips or repeats an event, also when events are written between pages (an older event replayed below the cursor shows on a later page). `from` (inclusive) and `to` (exclusive) bound `occurred_at`; `channels` keeps those channels. Each event names its `episode_id`, which opens with the history routes. Source key with scope `context`, or a person with role `review`.";

const timelineRoute = createRoute({
  method: "post",
  path: "/v1/timeline",
  summary: "Timeline of a customer, by handle",
  description: `${ABOUT} The handle goes in the body (SPEC rule 7). An unknown handle is \`404\`, the same as one the caller may not see; a read creates nothing.`,
  security: [{ sourceKey: [] }, { personToken: [] }],
  request: { body: { content: { "application/json": { schema: TimelineInputSchema } }, required: true } },
  responses: {
    200: { description: "A page of events.", content: { "application/json": { schema: TimelinePageSchema } } },
    ...problems(401, 403, 404, 422, 429, 500, 503),
  },
});

const profileTimelineRoute = createRoute({
  method: "get",
  path: "/v1/profiles/{id}/timeline",
  summary: "Timeline of a profile",
  description: `${ABOUT} A merged-away id answers the surviving profile (\`profile_id\` says which).`,
  security: [{ sourceKey: [] }, { personToken: [] }],
  request: { params: z.object({ id: text(1, 128) }), query: TimelineQuerySchema },
  responses: {
    200: { description: "A page of events.", content: { "application/json": { schema: TimelinePageSchema } } },
    ...problems(401, 403, 404, 422, 429, 500, 503),
  },
});

export const timelineRoutes = new OpenAPIHono<AppEnv>();

documentedRoute(timelineRoutes, timelineRoute, async (c) => {
  const { space, credential, requestId } = await dataRequest(c);
  const body = await readJsonBody(c.req.raw, TIMELINE_BODY_LIMIT);
  return c.json(unwrap(await space.readTimeline(credential, body, requestId)), 200);
});

documentedRoute(timelineRoutes, profileTimelineRoute, async (c) => {
  const { space, credential, requestId } = await dataRequest(c);
  const query = TimelineQuerySchema.parse(c.req.query());
  return c.json(unwrap(await space.profileTimeline(credential, c.req.param("id") ?? "", query, requestId)), 200);
});
