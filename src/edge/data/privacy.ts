import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { IdempotencyHeaderSchema } from "../../contract/common";
import {
  ErasureStatusSchema,
  ForgetInputSchema,
  ReceiptKeyQuerySchema,
  ReceiptKeySchema,
  ReceiptSchema,
} from "../../contract/privacy";
import { problems } from "../../contract/problem";
import { readJsonBody } from "../../http/body";
import { unwrap } from "../../http/problem";
import type { ErasureView } from "../../space/privacy/erasures";
import type { AppEnv } from "../context";
import { documentedRoute } from "../documented-route";
import { idempotencyOf } from "../idempotency";
import { dataRequest } from "./space";

const FORGET_BODY_LIMIT = 16 * 1024;

const answers = {
  200: { description: "Erased: the signed receipt.", content: { "application/json": { schema: ReceiptSchema } } },
  202: {
    description: "Under way: the subject answers `404` on every read already; the receipt follows.",
    content: { "application/json": { schema: ErasureStatusSchema } },
  },
} as const;

const forgetRoute = createRoute({
  method: "post",
  path: "/v1/forget",
  summary: "Erase a subject",
  description:
    "Erases the subject (its profile and every profile merged into it) from everything the space stores: events' content (each event's row stays as a tombstone with its idempotency key, time and source, so a resent batch is a duplicate), handles, identity evidence, sessions, derived memory, search rows, served contexts and kept answers. From the request on the subject answers `404` on every read; a large subject is erased in slices, and the receipt waits for file imports sent before the request to end (their records of the subject go in as tombstones). `200` with the signed receipt when done at once, else `202`; a retry with the same `Idempotency-Key` answers the same erasure as it stands. A person with role `security`.",
  security: [{ personToken: [] }],
  request: {
    headers: IdempotencyHeaderSchema,
    body: { content: { "application/json": { schema: ForgetInputSchema } }, required: true },
  },
  responses: { ...answers, ...problems(401, 403, 404, 409, 422, 429, 500, 503) },
});

const receiptRoute = createRoute({
  method: "get",
  path: "/v1/privacy/receipts/{receipt_id}",
  summary: "Read an erasure receipt",
  description:
    "`200` with the signed receipt once the erasure is done, `202` while it runs or waits for file imports sent before the request to end. A person with role `security`.",
  security: [{ personToken: [] }],
  request: { params: z.object({ receipt_id: z.string().min(1).max(128) }) },
  responses: { ...answers, ...problems(401, 403, 404, 422, 429, 500, 503) },
});

const receiptKeyRoute = createRoute({
  method: "get",
  path: "/v1/privacy/receipt-key",
  summary: "The key that verifies receipts",
  description:
    "The Ed25519 public key (JWK) that signs the space's receipts now, or the one named `kid` (a receipt names the key that signed it; keys rotate every 90 days and old ones stay here). Any valid source key of the space, or any person of its tenant.",
  security: [{ sourceKey: [] }, { personToken: [] }],
  request: { query: ReceiptKeyQuerySchema },
  responses: {
    200: { description: "The key.", content: { "application/json": { schema: ReceiptKeySchema } } },
    ...problems(401, 403, 404, 422, 429, 500, 503),
  },
});

export const privacyRoutes = new OpenAPIHono<AppEnv>();

/** The receipt once signed (`200`), else the erasure's state (`202`). */
function rendered(view: ErasureView) {
  return view.state === "completed"
    ? ({ body: view.receipt, status: 200 } as const)
    : ({ body: { receipt_id: view.receipt_id, state: view.state, started_at: view.started_at }, status: 202 } as const);
}

documentedRoute(privacyRoutes, forgetRoute, async (c) => {
  const { space, credential, requestId } = await dataRequest(c);
  const body = await readJsonBody(c.req.raw, FORGET_BODY_LIMIT);
  const idempotency = await idempotencyOf(c, c.req.header("idempotency-key") ?? "", body.status === "ok" ? body.text : "");
  const { body: answer, status } = rendered(unwrap(await space.forget(credential, body, idempotency, requestId)));
  return c.json(answer, status);
});

documentedRoute(privacyRoutes, receiptRoute, async (c) => {
  const { space, credential, requestId } = await dataRequest(c);
  const receiptId = c.req.param("receipt_id") ?? "";
  const { body: answer, status } = rendered(unwrap(await space.erasureReceipt(credential, receiptId, requestId)));
  return c.json(answer, status);
});

documentedRoute(privacyRoutes, receiptKeyRoute, async (c) => {
  const { space, credential } = await dataRequest(c);
  const { kid } = ReceiptKeyQuerySchema.parse(c.req.query());
  return c.json(unwrap(await space.receiptKey(credential, kid)), 200);
});
