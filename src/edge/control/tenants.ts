import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { TenantCreatedSchema, TenantInputSchema } from "../../contract/control";
import { problems } from "../../contract/problem";
import { controlObject } from "../../control/address";
import { unwrap } from "../../http/problem";
import type { AppEnv } from "../context";
import { jsonBody } from "../json-body";
import { operatorOnly } from "./guards";

const createTenantRoute = createRoute({
  method: "post",
  path: "/v1/tenants",
  summary: "Create a tenant and its first admin",
  description: "Platform operation: header `X-Service-Operator-Token`.",
  security: [{ operatorToken: [] }],
  middleware: [operatorOnly, jsonBody] as const,
  request: { body: { content: { "application/json": { schema: TenantInputSchema } }, required: true } },
  responses: {
    201: { description: "Created.", content: { "application/json": { schema: TenantCreatedSchema } } },
    ...problems(401, 409, 422, 500, 503),
  },
});

export const tenantRoutes = new OpenAPIHono<AppEnv>().openapi(createTenantRoute, async (c) => {
  const created = unwrap(await controlObject(c.env).createTenant(c.req.valid("json")));
  return c.json(created, 201);
});
