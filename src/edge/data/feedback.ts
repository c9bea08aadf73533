import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { MAX_BATCH_BYTES } from "../../contract/batch";
import { FeedbackRequestSchema } from "../../contract/feedback";
import { problems } from "../../contract/problem";
import { readJsonBody } from "../../http/body";
import { unwrap } from "../../http/problem";
import type { AppEnv } from "../context";
import { documentedRoute } from "../documented-route";
import { itemizedAnswers } from "./batch";
import { dataRequest } from "./space";

const feedbackRoute = createRoute({
  method: "post",
  path: "/v1/feedback",
  summary: "Correct memory: retract or correct a fact, resolve an open item, set a conversation's outcome",
  description:
    "1 to 500 items, each an `action` with its own fields, checked alone like batch items: an item without the fields of its action is refused with `invalid_input` and not stored; an id that names nothing is `not_found`. Stored as immutable items, deduplicated by `idempotency_key`. A fact or open item changes in the compiled memory before the answer; a conversation's outcome is set on its latest episode by the next compile (about 200 ms). Source key with scope `act`, or a person with role `review`.",
  security: [{ sourceKey: [] }, { personToken: [] }],
  request: { body: { content: { "application/json": { schema: FeedbackRequestSchema } }, required: true } },
  responses: { ...itemizedAnswers, ...problems(401, 403, 422, 429, 500, 503) },
});

export const feedbackRoutes = new OpenAPIHono<AppEnv>();

documentedRoute(feedbackRoutes, feedbackRoute, async (c) => {
  const { space, credential } = await dataRequest(c);
  const body = await readJsonBody(c.req.raw, MAX_BATCH_BYTES);
  const answer = unwrap(await space.giveFeedback(credential, body));
  return c.json(answer, answer.errors.length > 0 ? 207 : 200);
});
