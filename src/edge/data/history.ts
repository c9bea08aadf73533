import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { text } from "../../contract/common";
import { HistoryItemSchema, HistoryOpenInputSchema } from "../../contract/history";
import { problems } from "../../contract/problem";
import { readJsonBody } from "../../http/body";
import { unwrap } from "../../http/problem";
import type { AppEnv } from "../context";
import { documentedRoute } from "../documented-route";
import { dataRequest } from "./space";

export const HISTORY_BODY_LIMIT = 16 * 1024;

const ABOUT =
  "One conversation (an episode: its `episode_id`) or one object (its `open_item_id`, or the id of any of its changes or promises in an episode's `derived`): summary, what was asked, promises with their status, outcome, what it derived, and its events (`timeline`, oldest first, the latest 500). An object answers its whole history: status and attributes change by change, the promises about it, the events that changed it. A fact's or question's id opens the episode it came from. Source key with scope `context`, or a person with role `review`.";

const openRoute = createRoute({
  method: "post",
  path: "/v1/history/open",
  summary: "Open a conversation or object of a customer",
  description: `${ABOUT} The customer (\`handle\`) and the conversation travel in the body (SPEC rule 7). An item that is not that customer's, outside \`conversation_id\` when given, or hidden from the caller is \`404\`, the same as one that does not exist. Message text shows in \`timeline\` when \`verification\` (default \`V0\`, capped by the key's source's ceiling) is at the space's \`history_text_level\` (default \`V2\`) or above; summaries always.`,
  security: [{ sourceKey: [] }, { personToken: [] }],
  request: { body: { content: { "application/json": { schema: HistoryOpenInputSchema } }, required: true } },
  responses: {
    200: { description: "The history item.", content: { "application/json": { schema: HistoryItemSchema } } },
    ...problems(401, 403, 404, 422, 429, 500, 503),
  },
});

const itemRoute = createRoute({
  method: "get",
  path: "/v1/history/items/{item_id}",
  summary: "Read a history item",
  description: `${ABOUT} No customer and no verification come with this request: it reads as \`V0\`, so \`timeline\` carries message text only where the space's \`history_text_level\` is \`V0\` (or \`no_customer\`, below it); summaries always.`,
  security: [{ sourceKey: [] }, { personToken: [] }],
  request: { params: z.object({ item_id: text(1, 512) }) },
  responses: {
    200: { description: "The history item.", content: { "application/json": { schema: HistoryItemSchema } } },
    ...problems(401, 403, 404, 422, 429, 500, 503),
  },
});

export const historyRoutes = new OpenAPIHono<AppEnv>();

documentedRoute(historyRoutes, openRoute, async (c) => {
  const { space, credential, requestId } = await dataRequest(c);
  const body = await readJsonBody(c.req.raw, HISTORY_BODY_LIMIT);
  return c.json(unwrap(await space.openHistory(credential, body, requestId)), 200);
});

documentedRoute(historyRoutes, itemRoute, async (c) => {
  const { space, credential, requestId } = await dataRequest(c);
  return c.json(unwrap(await space.historyItem(credential, c.req.param("item_id") ?? "", requestId)), 200);
});
