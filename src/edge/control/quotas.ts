import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { POLICIES } from "../../auth/policy";
import { problems } from "../../contract/problem";
import { QuotaListSchema, QuotaQuerySchema, QuotaSchema, UsageSchema } from "../../contract/quotas";
import { controlObject } from "../../control/address";
import { unwrap } from "../../http/problem";
import type { AppEnv } from "../context";
import { jsonBody } from "../json-body";
import { operatorOnly, personOnly } from "./guards";

const putQuotaRoute = createRoute({
  method: "put",
  path: "/v1/quotas",
  summary: "Set a tenant's quota",
  description:
    "Platform operation: header `X-Service-Operator-Token`. Sets the tenant's limit of one metric for all its spaces together (each space may use an even part of it), in force in every space of the tenant before the answer, which echoes the request. An unknown tenant is `404`.",
  security: [{ operatorToken: [] }],
  middleware: [operatorOnly, jsonBody] as const,
  request: { body: { content: { "application/json": { schema: QuotaSchema } }, required: true } },
  responses: {
    200: { description: "The quota, as sent.", content: { "application/json": { schema: QuotaSchema } } },
    ...problems(401, 404, 422, 500, 503),
  },
});

const listQuotasRoute = createRoute({
  method: "get",
  path: "/v1/quotas",
  summary: "Read a tenant's quotas",
  description: "Platform operation: header `X-Service-Operator-Token`. An unknown tenant is `404`.",
  security: [{ operatorToken: [] }],
  middleware: [operatorOnly] as const,
  request: { query: QuotaQuerySchema },
  responses: {
    200: { description: "The tenant's quotas.", content: { "application/json": { schema: QuotaListSchema } } },
    ...problems(401, 404, 422, 500, 503),
  },
});

const usageRoute = createRoute({
  method: "get",
  path: "/v1/usage",
  summary: "The tenant's usage",
  description:
    "Role `admin`. Per metric, what the person's tenant used in the current period, in all and per space, beside its quota: events accepted today (UTC), requests admitted this minute, bytes of storage held now (the spaces' databases), bytes of media held now (stored uploads).",
  security: [{ personToken: [] }],
  middleware: [personOnly(POLICIES.usage)] as const,
  responses: {
    200: { description: "The usage.", content: { "application/json": { schema: UsageSchema } } },
    ...problems(401, 403, 422, 500, 503),
  },
});

export const quotaRoutes = new OpenAPIHono<AppEnv>()
  .openapi(putQuotaRoute, async (c) => c.json(unwrap(await controlObject(c.env).putQuota(c.req.valid("json"))), 200))
  .openapi(listQuotasRoute, async (c) =>
    c.json(unwrap(await controlObject(c.env).listQuotas(c.req.valid("query").tenant_id)), 200),
  )
  .openapi(usageRoute, async (c) => c.json(unwrap(await controlObject(c.env).usage(c.get("person"))), 200));
