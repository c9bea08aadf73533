import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { POLICIES } from "../../auth/policy";
import { PageQuerySchema } from "../../contract/common";
import { IdParamSchema, PersonInputSchema, PersonSchema, PersonUpdateSchema, pageOf } from "../../contract/control";
import { problems } from "../../contract/problem";
import { controlObject } from "../../control/address";
import { unwrap } from "../../http/problem";
import type { AppEnv } from "../context";
import { jsonInput, personOnly, refusedInput } from "./guards";

const createPersonRoute = createRoute({
  method: "post",
  path: "/v1/people",
  summary: "Add a person to the tenant",
  description:
    "Role `admin`. `vendor_sources` binds a `vendor` person to the sources they may see: sources of the tenant only (any other id, another tenant's source included, is `422`).",
  security: [{ personToken: [] }],
  middleware: [personOnly(POLICIES.people, { action: "person.create" }), jsonInput] as const,
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

const updatePersonRoute = createRoute({
  method: "patch",
  path: "/v1/people/{id}",
  summary: "Change a person's name, roles or vendor bindings",
  description:
    "Role `admin`. A change of `roles` or `vendor_sources` ends every token the person holds, on the control API and in every space of the tenant, from the next request on: they log in again to get the new roles. The tenant's last `admin` cannot lose the role (`409`). Another tenant's person is `404`.",
  security: [{ personToken: [] }],
  middleware: [personOnly(POLICIES.people, { action: "person.update", target: "person" }), jsonInput] as const,
  request: {
    params: IdParamSchema,
    body: { content: { "application/json": { schema: PersonUpdateSchema } }, required: true },
  },
  responses: {
    200: { description: "The person as changed.", content: { "application/json": { schema: PersonSchema } } },
    ...problems(401, 403, 404, 409, 422, 500, 503),
  },
});

const removePersonRoute = createRoute({
  method: "delete",
  path: "/v1/people/{id}",
  summary: "Remove a person",
  description:
    "Role `admin`. Every token the person holds ends from the next request on, on the control API and in every space of the tenant. The tenant's last `admin` cannot be removed (`409`). Another tenant's person is `404`.",
  security: [{ personToken: [] }],
  middleware: [personOnly(POLICIES.people, { action: "person.remove", target: "person" })] as const,
  request: { params: IdParamSchema },
  responses: {
    204: { description: "Removed." },
    ...problems(401, 403, 404, 409, 422, 500, 503),
  },
});

export const peopleRoutes = new OpenAPIHono<AppEnv>({ defaultHook: refusedInput })
  .openapi(createPersonRoute, async (c) =>
    c.json(unwrap(await controlObject(c.env).createPerson(c.get("person"), c.req.valid("json"), c.get("requestId"))), 201),
  )
  .openapi(listPeopleRoute, async (c) =>
    c.json(unwrap(await controlObject(c.env).listPeople(c.get("person"), c.req.valid("query"))), 200),
  )
  .openapi(updatePersonRoute, async (c) => {
    const person = await controlObject(c.env).updatePerson(
      c.get("person"),
      c.req.valid("param").id,
      c.req.valid("json"),
      c.get("requestId"),
    );
    return c.json(unwrap(person), 200);
  })
  .openapi(removePersonRoute, async (c) => {
    unwrap(await controlObject(c.env).removePerson(c.get("person"), c.req.valid("param").id, c.get("requestId")));
    return c.body(null, 204);
  });
