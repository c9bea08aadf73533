import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { POLICIES } from "../../auth/policy";
import { PageQuerySchema } from "../../contract/common";
import { IdParamSchema, pageOf, SourceInputSchema, SourceSchema } from "../../contract/control";
import { problems } from "../../contract/problem";
import { controlObject } from "../../control/address";
import { unwrap } from "../../http/problem";
import type { AppEnv } from "../context";
import { jsonInput, personOnly, refusedInput } from "./guards";
import { CreationIdempotencySchema, creationIdempotency, RETRIED } from "./projects";

const createSourceRoute = createRoute({
  method: "post",
  path: "/v1/spaces/{id}/sources",
  summary: "Create a source in a space",
  description:
    "Role `integration` (or `admin`). The verification ceiling defaults by kind: `agent` V2, `human_desk` and `system` V4, `analyst` V0; V3 only with `otp: true`. `act` lists the operations and object types the source's `act` keys may use. " +
    RETRIED,
  security: [{ personToken: [] }],
  middleware: [personOnly(POLICIES.sources, { action: "source.create", target: "space" }), jsonInput] as const,
  request: {
    params: IdParamSchema,
    headers: CreationIdempotencySchema,
    body: { content: { "application/json": { schema: SourceInputSchema } }, required: true },
  },
  responses: {
    201: { description: "Created.", content: { "application/json": { schema: SourceSchema } } },
    ...problems(401, 403, 404, 409, 422, 500, 503),
  },
});

const listSourcesRoute = createRoute({
  method: "get",
  path: "/v1/spaces/{id}/sources",
  summary: "List a space's sources",
  security: [{ personToken: [] }],
  middleware: [personOnly(POLICIES.sources)] as const,
  request: { params: IdParamSchema, query: PageQuerySchema },
  responses: {
    200: { description: "A page of sources.", content: { "application/json": { schema: pageOf(SourceSchema, "SourcePage") } } },
    ...problems(401, 403, 404, 422, 500, 503),
  },
});

export const sourceRoutes = new OpenAPIHono<AppEnv>({ defaultHook: refusedInput })
  .openapi(createSourceRoute, async (c) => {
    const idempotency = await creationIdempotency(c, c.req.valid("header")["idempotency-key"]);
    const source = await controlObject(c.env).createSource(
      c.get("person"),
      c.req.valid("param").id,
      c.req.valid("json"),
      idempotency,
      c.get("requestId"),
    );
    return c.json(unwrap(source), 201);
  })
  .openapi(listSourcesRoute, async (c) =>
    c.json(unwrap(await controlObject(c.env).listSources(c.get("person"), c.req.valid("param").id, c.req.valid("query"))), 200),
  );
