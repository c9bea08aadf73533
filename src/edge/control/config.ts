import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { POLICIES } from "../../auth/policy";
import { queryInteger } from "../../contract/common";
import { SpaceConfigSchema, SpaceConfigValuesSchema } from "../../contract/config";
import { IdParamSchema } from "../../contract/control";
import { problems } from "../../contract/problem";
import { controlObject } from "../../control/address";
import { unwrap } from "../../http/problem";
import type { AppEnv } from "../context";
import { jsonInput, personOnly, refusedInput } from "./guards";

const getConfigRoute = createRoute({
  method: "get",
  path: "/v1/spaces/{id}/config",
  summary: "Read a space's configuration",
  description: "The current version, or `?version=N`. Version 0 is the defaults every space starts with.",
  security: [{ personToken: [] }],
  middleware: [personOnly(POLICIES.configRead)] as const,
  request: { params: IdParamSchema, query: z.strictObject({ version: queryInteger(0, 1_000_000_000).optional() }) },
  responses: {
    200: { description: "The configuration.", content: { "application/json": { schema: SpaceConfigSchema } } },
    ...problems(401, 403, 404, 422, 500, 503),
  },
});

const putConfigRoute = createRoute({
  method: "put",
  path: "/v1/spaces/{id}/config",
  summary: "Store a new configuration version",
  description:
    "Role `admin`. The body is the whole set of values; every PUT is a new version, in force in the space before the answer. Unknown keys are `422`.",
  security: [{ personToken: [] }],
  middleware: [personOnly(POLICIES.configWrite, { action: "config.update", target: "space" }), jsonInput] as const,
  request: {
    params: IdParamSchema,
    body: { content: { "application/json": { schema: z.strictObject({ values: SpaceConfigValuesSchema }) } }, required: true },
  },
  responses: {
    200: { description: "The new version.", content: { "application/json": { schema: SpaceConfigSchema } } },
    ...problems(401, 403, 404, 422, 500, 503),
  },
});

export const configRoutes = new OpenAPIHono<AppEnv>({ defaultHook: refusedInput })
  .openapi(getConfigRoute, async (c) =>
    c.json(
      unwrap(await controlObject(c.env).getConfig(c.get("person"), c.req.valid("param").id, c.req.valid("query").version)),
      200,
    ),
  )
  .openapi(putConfigRoute, async (c) =>
    c.json(
      unwrap(
        await controlObject(c.env).putConfig(
          c.get("person"),
          c.req.valid("param").id,
          c.req.valid("json").values,
          c.get("requestId"),
        ),
      ),
      200,
    ),
  );
