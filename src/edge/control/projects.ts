import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { POLICIES } from "../../auth/policy";
import { IdempotencyKeyHeaderSchema, PageQuerySchema } from "../../contract/common";
import { IdParamSchema, ProjectInputSchema, ProjectSchema, pageOf, SpaceInputSchema, SpaceSchema } from "../../contract/control";
import { problems } from "../../contract/problem";
import { controlObject } from "../../control/address";
import type { SpaceView } from "../../control/spaces";
import { unwrap } from "../../http/problem";
import { addressOf } from "../address";
import type { AppEnv } from "../context";
import { idempotencyOf } from "../idempotency";
import { jsonInput, personOnly, refusedInput } from "./guards";

export const RETRIED =
  "Send an `Idempotency-Key` to retry safely: kept 24 hours per person with the hash of the request, the same key and request returns the first answer (the same id, one record made); the same key with another request is `409 conflict`; another person's same key is a fresh request.";

/** The optional `Idempotency-Key` of a creation (projects, spaces, sources, people): without one, each request creates. */
export const CreationIdempotencySchema = z.object({
  "idempotency-key": IdempotencyKeyHeaderSchema.optional().openapi({
    description:
      "Optional: 1 to 256 visible ASCII characters, spaces allowed between them. Kept 24 hours per person with the hash of the request: a retry with the same key returns the first answer (the same id); the same key with another request is `409 conflict`; without it each request creates a record of its own.",
  }),
});

/** The creation's `Idempotency-Key` with the hash of what it asks, or null when none was sent. */
export function creationIdempotency(c: Context<AppEnv>, key: string | undefined) {
  return key === undefined ? null : idempotencyOf(c, key);
}

const createProjectRoute = createRoute({
  method: "post",
  path: "/v1/projects",
  summary: "Create a project",
  description: `Role \`admin\`. ${RETRIED}`,
  security: [{ personToken: [] }],
  middleware: [personOnly(POLICIES.projects, { action: "project.create" }), jsonInput] as const,
  request: {
    headers: CreationIdempotencySchema,
    body: { content: { "application/json": { schema: ProjectInputSchema } }, required: true },
  },
  responses: {
    201: { description: "Created.", content: { "application/json": { schema: ProjectSchema } } },
    ...problems(401, 403, 409, 422, 500, 503),
  },
});

const listProjectsRoute = createRoute({
  method: "get",
  path: "/v1/projects",
  summary: "List the tenant's projects",
  security: [{ personToken: [] }],
  middleware: [personOnly(POLICIES.projects)] as const,
  request: { query: PageQuerySchema },
  responses: {
    200: {
      description: "A page of projects.",
      content: { "application/json": { schema: pageOf(ProjectSchema, "ProjectPage") } },
    },
    ...problems(401, 403, 422, 500, 503),
  },
});

const createSpaceRoute = createRoute({
  method: "post",
  path: "/v1/projects/{id}/spaces",
  summary: "Create a space in a project",
  description:
    "Role `admin`. The name is unique: it is the first label of the space's host. `region` defaults to the deployment's. " +
    RETRIED,
  security: [{ personToken: [] }],
  middleware: [personOnly(POLICIES.projects, { action: "space.create", target: "project" }), jsonInput] as const,
  request: {
    params: IdParamSchema,
    headers: CreationIdempotencySchema,
    body: { content: { "application/json": { schema: SpaceInputSchema } }, required: true },
  },
  responses: {
    201: { description: "Created.", content: { "application/json": { schema: SpaceSchema } } },
    ...problems(401, 403, 404, 409, 422, 500, 503),
  },
});

const listSpacesRoute = createRoute({
  method: "get",
  path: "/v1/projects/{id}/spaces",
  summary: "List a project's spaces",
  security: [{ personToken: [] }],
  middleware: [personOnly(POLICIES.projects)] as const,
  request: { params: IdParamSchema, query: PageQuerySchema },
  responses: {
    200: { description: "A page of spaces.", content: { "application/json": { schema: pageOf(SpaceSchema, "SpacePage") } } },
    ...problems(401, 403, 404, 422, 500, 503),
  },
});

/** Where the space's data API answers, as seen from the host this request came to (DESIGN 3.1). */
function withBaseUrl(c: Context<AppEnv>, space: SpaceView) {
  const url = new URL(c.req.url);
  const base_url =
    addressOf(url.hostname, c.env)?.api === "control"
      ? `https://${space.name}.${space.region}.${c.env.BASE_HOST}`
      : `${url.origin}/spaces/${space.name}`;
  return { ...space, base_url };
}

export const projectRoutes = new OpenAPIHono<AppEnv>({ defaultHook: refusedInput })
  .openapi(createProjectRoute, async (c) => {
    const idempotency = await creationIdempotency(c, c.req.valid("header")["idempotency-key"]);
    const project = await controlObject(c.env).createProject(
      c.get("person"),
      c.req.valid("json").name,
      idempotency,
      c.get("requestId"),
    );
    return c.json(unwrap(project), 201);
  })
  .openapi(listProjectsRoute, async (c) =>
    c.json(unwrap(await controlObject(c.env).listProjects(c.get("person"), c.req.valid("query"))), 200),
  )
  .openapi(createSpaceRoute, async (c) => {
    const { name, region } = c.req.valid("json");
    const idempotency = await creationIdempotency(c, c.req.valid("header")["idempotency-key"]);
    const space = await controlObject(c.env).createSpace(
      c.get("person"),
      c.req.valid("param").id,
      name,
      region ?? c.env.REGION,
      idempotency,
      c.get("requestId"),
    );
    return c.json(withBaseUrl(c, unwrap(space)), 201);
  })
  .openapi(listSpacesRoute, async (c) => {
    const page = unwrap(await controlObject(c.env).listSpaces(c.get("person"), c.req.valid("param").id, c.req.valid("query")));
    return c.json({ data: page.data.map((space) => withBaseUrl(c, space)), next_cursor: page.next_cursor }, 200);
  });
