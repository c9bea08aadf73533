import { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { ProjectSchema, SourceSchema, SpaceSchema } from "../../src/contract/control";
import { ProblemSchema } from "../../src/contract/problem";
import { call, createTenant, json, type Tenant, uniqueName } from "../support/seed";

interface Setup {
  tenant: Tenant;
  projectId: string;
  spaceId: string;
  /** Names and e-mails are unique across tenants: each test's bodies carry its own tag. */
  tag: string;
}

interface Creation {
  name: string;
  path: (setup: Setup) => string;
  /** The n-th distinct request body; `unique` routes refuse a second record with the same body (`409`). */
  body: (n: number, tag: string) => Record<string, unknown>;
  unique: boolean;
  schema: z.ZodType<Record<string, unknown>>;
  id: string;
  /** How the created records are told apart in the list (the field the bodies vary). */
  field: string;
}

const creations: Creation[] = [
  {
    name: "POST /v1/projects",
    path: () => "/control/v1/projects",
    body: (n, tag) => ({ name: `Project ${tag} ${n}` }),
    unique: false,
    schema: ProjectSchema,
    id: "project_id",
    field: "name",
  },
  {
    name: "POST /v1/projects/{id}/spaces",
    path: (setup) => `/control/v1/projects/${setup.projectId}/spaces`,
    body: (n, tag) => ({ name: `${tag}-${n}` }),
    unique: true,
    schema: SpaceSchema,
    id: "space_id",
    field: "name",
  },
  {
    name: "POST /v1/spaces/{id}/sources",
    path: (setup) => `/control/v1/spaces/${setup.spaceId}/sources`,
    body: (n, tag) => ({ name: `Source ${tag} ${n}`, kind: "agent" }),
    unique: false,
    schema: SourceSchema,
    id: "source_id",
    field: "name",
  },
];

async function setup(): Promise<Setup> {
  const tenant = await createTenant();
  const project = ProjectSchema.parse(
    await json(await call("POST", "/control/v1/projects", { token: tenant.token, body: { name: "Home" } }), 201),
  );
  const space = SpaceSchema.parse(
    await json(
      await call("POST", `/control/v1/projects/${project.project_id}/spaces`, {
        token: tenant.token,
        body: { name: uniqueName("s") },
      }),
      201,
    ),
  );
  return { tenant, projectId: project.project_id, spaceId: space.space_id, tag: uniqueName("c") };
}

/** A second admin of the tenant, logged in. */
async function otherAdmin(tenant: Tenant): Promise<string> {
  const email = `${uniqueName("other")}@example.test`;
  const password = "another long password";
  await json(await call("POST", "/control/v1/people", { token: tenant.token, body: { email, password, roles: ["admin"] } }), 201);
  const login = await json<{ token: string }>(await call("POST", "/control/v1/auth/login", { body: { email, password } }), 200);
  return login.token;
}

function create(token: string, creation: Creation, setup: Setup, body: Record<string, unknown>, key?: string) {
  const headers: Record<string, string> = key === undefined ? {} : { "idempotency-key": key };
  return call("POST", creation.path(setup), { token, headers, body });
}

async function created(creation: Creation, response: Response): Promise<string> {
  const record = creation.schema.parse(await json(response, 201));
  return String(record[creation.id]);
}

/** How many records of the route's list carry the body's value. */
async function count(creation: Creation, setup: Setup, body: Record<string, unknown>): Promise<number> {
  const list = z
    .object({ data: z.array(creation.schema), next_cursor: z.string().nullable() })
    .parse(await json(await call("GET", `${creation.path(setup)}?limit=200`, { token: setup.tenant.token }), 200));
  return list.data.filter((record) => record[creation.field] === body[creation.field]).length;
}

async function expectConflict(response: Response) {
  const text = await response.text();
  expect(response.status, text).toBe(409);
  expect(ProblemSchema.parse(JSON.parse(text)).code).toBe("conflict");
}

describe.each(creations)("$name with an optional Idempotency-Key", (creation) => {
  it("answers a retry with the same key and body with the first record, made once", async () => {
    const ids = await setup();
    const key = crypto.randomUUID();
    const first = await created(creation, await create(ids.tenant.token, creation, ids, creation.body(1, ids.tag), key));
    const again = await created(creation, await create(ids.tenant.token, creation, ids, creation.body(1, ids.tag), key));
    expect(again).toBe(first);
    expect(await count(creation, ids, creation.body(1, ids.tag))).toBe(1);
  });

  it("refuses another body under the same key with 409, making nothing", async () => {
    const ids = await setup();
    const key = crypto.randomUUID();
    await created(creation, await create(ids.tenant.token, creation, ids, creation.body(1, ids.tag), key));
    await expectConflict(await create(ids.tenant.token, creation, ids, creation.body(2, ids.tag), key));
    expect(await count(creation, ids, creation.body(2, ids.tag))).toBe(0);
  });

  it("makes a fresh record for another person sending the same key", async () => {
    const ids = await setup();
    const key = crypto.randomUUID();
    const first = await created(creation, await create(ids.tenant.token, creation, ids, creation.body(1, ids.tag), key));
    const other = await otherAdmin(ids.tenant);
    // Where a second record with the same body is refused, the other person asks for another one.
    const body = creation.body(creation.unique ? 2 : 1, ids.tag);
    const fresh = await created(creation, await create(other, creation, ids, body, key));
    expect(fresh).not.toBe(first);
    expect(await count(creation, ids, body)).toBe(creation.unique ? 1 : 2);
  });

  it("without a key, creates as before: a second record, or 409 where the body must be unique", async () => {
    const ids = await setup();
    const first = await created(creation, await create(ids.tenant.token, creation, ids, creation.body(1, ids.tag)));
    const response = await create(ids.tenant.token, creation, ids, creation.body(1, ids.tag));
    if (creation.unique) {
      await expectConflict(response);
      expect(await count(creation, ids, creation.body(1, ids.tag))).toBe(1);
    } else {
      expect(await created(creation, response)).not.toBe(first);
      expect(await count(creation, ids, creation.body(1, ids.tag))).toBe(2);
    }
  });
});

describe("the optional Idempotency-Key of a creation", () => {
  it("refuses an empty header with 422, as the routes that require one", async () => {
    const ids = await setup();
    const response = await call("POST", "/control/v1/projects", {
      token: ids.tenant.token,
      headers: { "idempotency-key": "" },
      body: { name: "Empty" },
    });
    const text = await response.text();
    expect(response.status, text).toBe(422);
    expect(ProblemSchema.parse(JSON.parse(text)).code).toBe("invalid_input");
  });
});
