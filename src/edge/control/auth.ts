import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { signPersonToken } from "../../auth/person-token";
import { POLICIES } from "../../auth/policy";
import { LoginAnswerSchema, LoginInputSchema, PersonSchema } from "../../contract/control";
import { problems } from "../../contract/problem";
import { controlObject } from "../../control/address";
import { unwrap } from "../../http/problem";
import type { AppEnv } from "../context";
import { jsonBody } from "../json-body";
import { personOnly, refusedInput } from "./guards";

const loginRoute = createRoute({
  method: "post",
  path: "/v1/auth/login",
  summary: "Log in",
  description:
    "Returns a person token valid 15 minutes. Five failures for one e-mail within 15 minutes answer `429` until the oldest ages out.",
  middleware: [jsonBody] as const,
  request: { body: { content: { "application/json": { schema: LoginInputSchema } }, required: true } },
  responses: {
    200: { description: "A person token.", content: { "application/json": { schema: LoginAnswerSchema } } },
    ...problems(401, 422, 429, 500, 503),
  },
});

const logoutRoute = createRoute({
  method: "post",
  path: "/v1/auth/logout",
  summary: "Log out",
  description:
    "Ends the person token the request carries, on the control API and in every space of the tenant, before it answers: from the next request on the token is `401` everywhere. Other tokens of the person stay valid. No body.",
  security: [{ personToken: [] }],
  middleware: [personOnly(POLICIES.me, { action: "auth.logout" })] as const,
  responses: {
    204: { description: "The token is ended." },
    ...problems(401, 403, 422, 500, 503),
  },
});

const meRoute = createRoute({
  method: "get",
  path: "/v1/users/me",
  summary: "The current person",
  security: [{ personToken: [] }],
  middleware: [personOnly(POLICIES.me)] as const,
  responses: {
    200: { description: "The person.", content: { "application/json": { schema: PersonSchema } } },
    ...problems(401, 403, 422, 500, 503),
  },
});

export const authRoutes = new OpenAPIHono<AppEnv>({ defaultHook: refusedInput })
  .openapi(loginRoute, async (c) => {
    const { email, password } = c.req.valid("json");
    const { person, generation } = unwrap(await controlObject(c.env).login(email, password, c.get("requestId")));
    const { token, expiresAt } = await signPersonToken(c.get("secrets").jwtKey, person, generation, Date.now());
    return c.json({ token, expires_at: new Date(expiresAt).toISOString() }, 200);
  })
  .openapi(logoutRoute, async (c) => {
    unwrap(await controlObject(c.env).logout(c.get("person"), c.get("requestId")));
    return c.body(null, 204);
  })
  .openapi(meRoute, async (c) => c.json(unwrap(await controlObject(c.env).me(c.get("person"))), 200));
