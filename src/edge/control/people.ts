import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { POLICIES } from "../../auth/policy";
import { PageQuerySchema } from "../../contract/common";
import { PersonInputSchema, PersonSchema, pageOf } from "../../contract/control";
import { problems } from "../../contract/problem";
import { controlObject } from "../../control/address";
import { unwrap } from "../../http/problem";
import type { AppEnv } from "../context";
import { jsonBody } from "../json-body";
import { personOnly } from "./guards";

const createPersonRoute = createRoute({
  method: "post",
  path: "/v1/people",
  summary: "Add a person to the tenant",
  description: "Role `admin`. `vendor_sources` binds a `vendor` person to the sources they may see.",
  security: [{ personToken: [] }],
  middleware: [personOnly(POLICIES.people), jsonBody] as const,
  request: { body: { content: { "application/json": { schema: PersonInputSchema } }, required: true } },
  responses: {
    201: { description: "Created.", content: { "application/json": { schema: PersonSchema } } },
    ...problems(401, 403, 409, 422, 500, 503),
  },
});

const listPeopleRoute = createRoute({
  method: "get",
  path: "/v1/people",
  summary: "List the tenant's people",
  security: [{ personToken: [] }],
  middleware: [personOnly(POLICIES.people)] as const,
  request: { query: PageQuerySchema },
  responses: {
    200: { description: "A page of people.", content: { "application/json": { schema: pageOf(PersonSchema, "PersonPage") } } },
    ...problems(401, 403, 422, 500, 503),
  },
});

export const peopleRoutes = new OpenAPIHono<AppEnv>()
  .openapi(createPersonRoute, async (c) =>
    c.json(unwrap(await controlObject(c.env).createPerson(c.get("person"), c.req.valid("json"))), 201),
  )
  .openapi(listPeopleRoute, async (c) =>
    c.json(unwrap(await controlObject(c.env).listPeople(c.get("person"), c.req.valid("query"))), 200),
  );
