import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { POLICIES } from "../../auth/policy";
import { IdempotencyHeaderSchema, PageQuerySchema } from "../../contract/common";
import { IdParamSchema, KeyInputSchema, KeySchema, pageOf } from "../../contract/control";
import { problems } from "../../contract/problem";
import { controlObject } from "../../control/address";
import { unwrap } from "../../http/problem";
import type { AppEnv } from "../context";
import { idempotencyOf } from "../idempotency";
import { jsonInput, personOnly, refusedInput } from "./guards";

const IDEMPOTENT =
  "Requires `Idempotency-Key` (1 to 256 visible ASCII characters, spaces allowed between them), kept 24 hours per person with the hash of the request: the same key and request returns the first answer, the same key with another request is `409 conflict`; another person's same key is a fresh request.";

const createKeyRoute = createRoute({
  method: "post",
  path: "/v1/sources/{id}/keys",
  summary: "Create a source key",
  description: `Role \`integration\` (or \`admin\`). The answer carries the whole key once, in \`key\`. ${IDEMPOTENT}`,
  security: [{ personToken: [] }],
  middleware: [personOnly(POLICIES.keys, { action: "key.create", target: "source" }), jsonInput] as const,
  request: {
    params: IdParamSchema,
    headers: IdempotencyHeaderSchema,
    body: { content: { "application/json": { schema: KeyInputSchema } }, required: true },
  },
  responses: {
    201: { description: "Created; `key` is shown only here.", content: { "application/json": { schema: KeySchema } } },
    ...problems(401, 403, 404, 409, 422, 500, 503),
  },
});

const listKeysRoute = createRoute({
  method: "get",
  path: "/v1/sources/{id}/keys",
  summary: "List a source's keys",
  description:
    "Role `integration` (or `admin`). Every key of the source, revoked and expired ones too (their `status` says so), oldest first; never the secret (`key` is absent).",
  security: [{ personToken: [] }],
  middleware: [personOnly(POLICIES.keys)] as const,
  request: { params: IdParamSchema, query: PageQuerySchema },
  responses: {
    200: { description: "A page of keys.", content: { "application/json": { schema: pageOf(KeySchema, "KeyPage") } } },
    ...problems(401, 403, 404, 422, 500, 503),
  },
});

const rotateKeyRoute = createRoute({
  method: "post",
  path: "/v1/keys/{id}/rotate",
  summary: "Rotate a source key",
  description: `A new secret for the same key id; the old one is refused from the next request on. ${IDEMPOTENT}`,
  security: [{ personToken: [] }],
  middleware: [personOnly(POLICIES.keys, { action: "key.rotate", target: "key" })] as const,
  request: { params: IdParamSchema, headers: IdempotencyHeaderSchema },
  responses: {
    200: { description: "Rotated; `key` is shown only here.", content: { "application/json": { schema: KeySchema } } },
    ...problems(401, 403, 404, 409, 422, 500, 503),
  },
});

const revokeKeyRoute = createRoute({
  method: "post",
  path: "/v1/keys/{id}/revoke",
  summary: "Revoke a source key",
  description: `The key is refused from the next request on. ${IDEMPOTENT}`,
  security: [{ personToken: [] }],
  middleware: [personOnly(POLICIES.keys, { action: "key.revoke", target: "key" })] as const,
  request: { params: IdParamSchema, headers: IdempotencyHeaderSchema },
  responses: {
    200: { description: "Revoked.", content: { "application/json": { schema: KeySchema } } },
    ...problems(401, 403, 404, 409, 422, 500, 503),
  },
});

export const keyRoutes = new OpenAPIHono<AppEnv>({ defaultHook: refusedInput })
  .openapi(createKeyRoute, async (c) => {
    const idempotency = await idempotencyOf(c, c.req.valid("header")["idempotency-key"]);
    const key = await controlObject(c.env).createKey(
      c.get("person"),
      c.req.valid("param").id,
      c.req.valid("json"),
      idempotency,
      c.get("requestId"),
    );
    return c.json(unwrap(key), 201);
  })
  .openapi(listKeysRoute, async (c) =>
    c.json(unwrap(await controlObject(c.env).listKeys(c.get("person"), c.req.valid("param").id, c.req.valid("query"))), 200),
  )
  .openapi(rotateKeyRoute, async (c) => {
    const idempotency = await idempotencyOf(c, c.req.valid("header")["idempotency-key"]);
    return c.json(
      unwrap(await controlObject(c.env).rotateKey(c.get("person"), c.req.valid("param").id, idempotency, c.get("requestId"))),
      200,
    );
  })
  .openapi(revokeKeyRoute, async (c) => {
    const idempotency = await idempotencyOf(c, c.req.valid("header")["idempotency-key"]);
    return c.json(
      unwrap(await controlObject(c.env).revokeKey(c.get("person"), c.req.valid("param").id, idempotency, c.get("requestId"))),
      200,
    );
  });
