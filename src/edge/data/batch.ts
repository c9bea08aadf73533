import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { BatchAnswerSchema, BatchRequestSchema, MAX_BATCH_BYTES } from "../../contract/batch";
import { problems } from "../../contract/problem";
import { readJsonBody } from "../../http/body";
import { unwrap } from "../../http/problem";
import type { AppEnv } from "../context";
import { documentedRoute } from "../documented-route";
import { dataRequest } from "./space";

/** The answers of a route whose items are checked one by one (batch, feedback): `200`, or `207` listing the refused. */
export const itemizedAnswers = {
  200: {
    description: "Every item went in (or was a duplicate).",
    content: { "application/json": { schema: BatchAnswerSchema } },
  },
  207: { description: "Some items were rejected.", content: { "application/json": { schema: BatchAnswerSchema } } },
} as const;

const batchRoute = createRoute({
  method: "post",
  path: "/v1/batch",
  summary: "Write a batch of items",
  description:
    "1 to 500 items of any type, at most 2.5 MB. Each item is checked alone: valid items are stored before the answer, rejected ones are listed in `errors`. Deduplicated by `idempotency_key` across all time in the space. Source key with scope `track`; `action` events also need `act`, `identify` and `verify` items need `identify`.",
  security: [{ sourceKey: [] }],
  request: { body: { content: { "application/json": { schema: BatchRequestSchema } }, required: true } },
  responses: { ...itemizedAnswers, ...problems(401, 403, 422, 429, 500, 503) },
});

export const batchRoutes = new OpenAPIHono<AppEnv>();

documentedRoute(batchRoutes, batchRoute, async (c) => {
  const { space, credential } = await dataRequest(c);
  const body = await readJsonBody(c.req.raw, MAX_BATCH_BYTES);
  const answer = unwrap(await space.ingestBatch(credential, body));
  return c.json(answer, answer.errors.length > 0 ? 207 : 200);
});
