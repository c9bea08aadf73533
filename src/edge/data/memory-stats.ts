import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { problems } from "../../contract/problem";
import { spaceObject } from "../../space/address";
import type { AppEnv } from "../context";
import { requireOperator } from "../credentials";
import { documentedRoute } from "../documented-route";
import { spaceOf } from "./space";

export const MemoryStatsSchema = z
  .object({
    hot_tier_bytes: z.number().int(),
    hot_tier_budget_bytes: z.number().int(),
    compile_queue: z.number().int().openapi({ description: "Sessions (and profiles) waiting to be compiled." }),
    compile_events: z.number().int().openapi({
      description:
        "Items their sessions received since they were last compiled (events, and the ends and handoffs of their conversations).",
    }),
    search_backlog: z.number().int().openapi({ description: "Messages stored and not indexed for search yet." }),
  })
  .openapi("MemoryStats");

const statsRoute = createRoute({
  method: "get",
  path: "/v1/ops/memory",
  summary: "Memory of the space's object (operators)",
  description:
    "Platform operation: header `X-Service-Operator-Token`. What the hot tier holds against its budget, how many sessions and events wait for the compiler, and how many messages for the search index. Carries no customer data.",
  security: [{ operatorToken: [] }],
  responses: {
    200: { description: "The figures.", content: { "application/json": { schema: MemoryStatsSchema } } },
    ...problems(401, 422, 500, 503),
  },
});

export const memoryStatsRoutes = new OpenAPIHono<AppEnv>();

documentedRoute(memoryStatsRoutes, statsRoute, async (c) => {
  requireOperator(c);
  return c.json(await spaceObject(c.env, spaceOf(c)).memoryStats(), 200);
});
