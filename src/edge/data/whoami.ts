import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { problems } from "../../contract/problem";
import { unwrap } from "../../http/problem";
import type { AppEnv } from "../context";
import { documentedRoute } from "../documented-route";
import { dataRequest } from "./space";

const CallerSchema = z
  .object({
    space: z.string(),
    principal: z.union([
      z.object({
        kind: z.literal("key"),
        key_id: z.string(),
        source_id: z.string(),
        scopes: z.array(z.string()),
        mode: z.string(),
      }),
      z.object({ kind: z.literal("person"), person_id: z.string(), roles: z.array(z.string()) }),
    ]),
  })
  .openapi("Caller");

const whoamiRoute = createRoute({
  method: "get",
  path: "/v1/whoami",
  summary: "Check a credential",
  description:
    "Who the credential is in this space: a valid source key of the space, or a person of its tenant. Does no other work.",
  security: [{ sourceKey: [] }, { personToken: [] }],
  responses: {
    200: { description: "The caller.", content: { "application/json": { schema: CallerSchema } } },
    ...problems(401, 403, 422, 429, 500, 503),
  },
});

export const whoamiRoutes = new OpenAPIHono<AppEnv>();

documentedRoute(whoamiRoutes, whoamiRoute, async (c) => {
  const { space, credential } = await dataRequest(c);
  return c.json(unwrap(await space.whoami(credential)));
});
