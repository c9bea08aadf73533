import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SpaceConfigSchema } from "../../src/contract/config";
import { KeySchema, SourceSchema } from "../../src/contract/control";
import { ProblemSchema } from "../../src/contract/problem";
import type { ControlObject } from "../../src/control/object";
import { batch, call, createKey, createSpace, createTenant, json, message, OPERATOR_TOKEN, uniqueName } from "../support/seed";

async function expectProblem(response: Response, status: number, code: string) {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  const problem = ProblemSchema.parse(JSON.parse(text));
  expect(problem.code).toBe(code);
  return problem;
}

describe("control API: tenants (operator)", () => {
  it("needs X-Service-Operator-Token", async () => {
    const body = { name: "T", admin: { email: `${uniqueName("a")}@example.test`, password: "long enough password" } };
    await expectProblem(await call("POST", "/control/v1/tenants", { body }), 401, "unauthenticated");
    await expectProblem(await call("POST", "/control/v1/tenants", { body, operator: "wrong" }), 401, "unauthenticated");
    const created = await json<{ admin: { roles: string[] } }>(
      await call("POST", "/control/v1/tenants", { body, operator: OPERATOR_TOKEN }),
      201,
    );
    expect(created.admin.roles).toEqual(["admin"]);
  });

  it("refuses a second person with the same e-mail with 409", async () => {
    const tenant = await createTenant();
    const body = { name: "T", admin: { email: tenant.email, password: "long enough password" } };
    await expectProblem(await call("POST", "/control/v1/tenants", { body, operator: OPERATOR_TOKEN }), 409, "conflict");
  });
});

describe("control API: login and users/me", () => {
  it("returns a 15-minute person token and the current person", async () => {
    const tenant = await createTenant();
    const login = await json<{ token: string; expires_at: string }>(
      await call("POST", "/control/v1/auth/login", { body: { email: tenant.email.toUpperCase(), password: tenant.password } }),
      200,
    );
    const ttl = Date.parse(login.expires_at) - Date.now();
    expect(ttl).toBeGreaterThan(14 * 60_000);
    expect(ttl).toBeLessThanOrEqual(15 * 60_000);
    const me = await json<{ email: string; tenant_id: string }>(
      await call("GET", "/control/v1/users/me", { token: login.token }),
      200,
    );
    expect(me).toMatchObject({ email: tenant.email, tenant_id: tenant.tenantId });
  });

  it("answers 401 to a wrong password or unknown e-mail, and 429 after five failures in 15 minutes", async () => {
    const tenant = await createTenant();
    await expectProblem(
      await call("POST", "/control/v1/auth/login", { body: { email: "nobody@example.test", password: "x" } }),
      401,
      "unauthenticated",
    );
    for (let attempt = 0; attempt < 5; attempt++) {
      await expectProblem(
        await call("POST", "/control/v1/auth/login", { body: { email: tenant.email, password: "wrong" } }),
        401,
        "unauthenticated",
      );
    }
    const response = await call("POST", "/control/v1/auth/login", { body: { email: tenant.email, password: tenant.password } });
    await expectProblem(response, 429, "rate_limited");
    expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);

    // 15 minutes later the lock is gone.
    const control = env.CONTROL.get(env.CONTROL.idFromName("control"));
    await runInDurableObject(control, (instance: ControlObject) => {
      instance.clock = { now: () => Date.now() + 16 * 60_000 };
    });
    try {
      expect(
        (await call("POST", "/control/v1/auth/login", { body: { email: tenant.email, password: tenant.password } })).status,
      ).toBe(200);
    } finally {
      await runInDurableObject(control, (instance: ControlObject) => {
        instance.clock = { now: () => Date.now() };
      });
    }
  });

  it("keeps no typed e-mail of a failed login: failures are counted under a keyed digest, and lock an unknown e-mail too", async () => {
    const typo = `${uniqueName("typo")}@example.test`;
    const attempt = () => call("POST", "/control/v1/auth/login", { body: { email: ` ${typo.toUpperCase()} `, password: "x" } });
    for (let i = 0; i < 5; i++) await expectProblem(await attempt(), 401, "unauthenticated");
    await expectProblem(await attempt(), 429, "rate_limited");
    const control = env.CONTROL.get(env.CONTROL.idFromName("control"));
    const rows = await runInDurableObject(control, (_instance: ControlObject, state) =>
      state.storage.sql.exec("SELECT * FROM login_failures").toArray(),
    );
    expect(rows.length).toBeGreaterThanOrEqual(5);
    const stored = JSON.stringify(rows).toLowerCase();
    expect(stored).not.toContain(typo);
    expect(stored).not.toContain(typo.split("@")[0]);
  });

  it("clears the failure count on a success: four failures, a success and four more do not lock", async () => {
    const tenant = await createTenant();
    const attempt = (password: string) => call("POST", "/control/v1/auth/login", { body: { email: tenant.email, password } });
    for (let i = 0; i < 4; i++) await expectProblem(await attempt("wrong"), 401, "unauthenticated");
    expect((await attempt(tenant.password)).status).toBe(200);
    for (let i = 0; i < 4; i++) await expectProblem(await attempt("wrong"), 401, "unauthenticated");
    expect((await attempt(tenant.password)).status).toBe(200);
  });

  it("answers 401 without a token and 403 to a source key", async () => {
    const space = await createSpace();
    await expectProblem(await call("GET", "/control/v1/users/me"), 401, "unauthenticated");
    await expectProblem(await call("GET", "/control/v1/users/me", { token: space.key }), 403, "forbidden");
  });
});

describe("control API: people and roles", () => {
  it("lets an admin add people, and refuses a person without the role with 403", async () => {
    const tenant = await createTenant();
    const email = `${uniqueName("int")}@example.test`;
    const person = await json<{ roles: string[] }>(
      await call("POST", "/control/v1/people", {
        token: tenant.token,
        body: { email, password: "integration password", roles: ["integration"] },
      }),
      201,
    );
    expect(person.roles).toEqual(["integration"]);
    const { token } = await json<{ token: string }>(
      await call("POST", "/control/v1/auth/login", { body: { email, password: "integration password" } }),
      200,
    );
    await expectProblem(await call("GET", "/control/v1/people", { token }), 403, "forbidden");
    await expectProblem(await call("POST", "/control/v1/projects", { token, body: { name: "P" } }), 403, "forbidden");
    const page = await json<{ data: unknown[] }>(await call("GET", "/control/v1/people", { token: tenant.token }), 200);
    expect(page.data).toHaveLength(2);
  });

  it("answers 50 records a page when no limit is given", async () => {
    const tenant = await createTenant();
    await Promise.all(
      Array.from({ length: 51 }, (_, i) =>
        call("POST", "/control/v1/projects", { token: tenant.token, body: { name: `p${i}` } }),
      ),
    );
    const page = await json<{ data: unknown[]; next_cursor: string | null }>(
      await call("GET", "/control/v1/projects", { token: tenant.token }),
      200,
    );
    expect(page.data).toHaveLength(50);
    expect(page.next_cursor).not.toBeNull();
  });

  it("pages lists with cursor and limit", async () => {
    const tenant = await createTenant();
    for (const name of ["a", "b", "c"]) await call("POST", "/control/v1/projects", { token: tenant.token, body: { name } });
    const first = await json<{ data: { name: string }[]; next_cursor: string }>(
      await call("GET", "/control/v1/projects?limit=2", { token: tenant.token }),
      200,
    );
    expect(first.data.map((project) => project.name)).toEqual(["a", "b"]);
    const second = await json<{ data: { name: string }[]; next_cursor: string | null }>(
      await call("GET", `/control/v1/projects?limit=2&cursor=${first.next_cursor}`, { token: tenant.token }),
      200,
    );
    expect(second.data.map((project) => project.name)).toEqual(["c"]);
    expect(second.next_cursor).toBeNull();
    await expectProblem(await call("GET", "/control/v1/projects?limit=201", { token: tenant.token }), 422, "invalid_input");
    await expectProblem(await call("GET", "/control/v1/projects?cursor=garbage", { token: tenant.token }), 422, "invalid_input");
  });
});

describe("control API: projects, spaces and sources", () => {
  it("keeps tenants apart: another tenant's project is 404", async () => {
    const space = await createSpace();
    const stranger = await createTenant();
    await expectProblem(
      await call("GET", `/control/v1/spaces/${space.spaceId}/sources`, { token: stranger.token }),
      404,
      "not_found",
    );
    await expectProblem(
      await call("POST", `/control/v1/spaces/${space.spaceId}/sources`, {
        token: stranger.token,
        body: { name: "x", kind: "agent" },
      }),
      404,
      "not_found",
    );
  });

  it("keeps tenants apart on every record: another tenant's project, space, source, key and config are 404, and nothing changes", async () => {
    const space = await createSpace();
    const stranger = await createTenant();
    const projects = await json<{ data: { project_id: string }[] }>(
      await call("GET", "/control/v1/projects", { token: space.tenant.token }),
      200,
    );
    const projectId = projects.data[0]?.project_id;
    const keyed = () => ({ token: stranger.token, headers: { "idempotency-key": crypto.randomUUID() }, body: {} });
    const attempts: [string, string, Parameters<typeof call>[2]][] = [
      ["GET", `/control/v1/projects/${projectId}/spaces`, { token: stranger.token }],
      ["POST", `/control/v1/projects/${projectId}/spaces`, { token: stranger.token, body: { name: uniqueName("sp") } }],
      ["POST", `/control/v1/sources/${space.sourceId}/keys`, { ...keyed(), body: { scopes: ["track"] } }],
      ["POST", `/control/v1/keys/${space.keyId}/rotate`, keyed()],
      ["POST", `/control/v1/keys/${space.keyId}/revoke`, keyed()],
      ["GET", `/control/v1/spaces/${space.spaceId}/config`, { token: stranger.token }],
      [
        "PUT",
        `/control/v1/spaces/${space.spaceId}/config`,
        { token: stranger.token, body: { values: { clock_tolerance_s: 10 } } },
      ],
    ];
    for (const [method, path, options] of attempts) {
      await expectProblem(await call(method, path, options), 404, "not_found");
    }
    // The owner's key still works, and its config is as it was.
    await json(await batch(space, [message()]), 200);
    const config = await json<{ values: Record<string, unknown> }>(
      await call("GET", `/control/v1/spaces/${space.spaceId}/config`, { token: space.tenant.token }),
      200,
    );
    expect(config.values.clock_tolerance_s).not.toBe(10);
  });

  it("gives a space a base_url and refuses a taken name with 409", async () => {
    const tenant = await createTenant();
    const project = await json<{ project_id: string }>(
      await call("POST", "/control/v1/projects", { token: tenant.token, body: { name: "P" } }),
      201,
    );
    const name = uniqueName("sp");
    const space = await json<{ base_url: string; region: string }>(
      await call("POST", `/control/v1/projects/${project.project_id}/spaces`, { token: tenant.token, body: { name } }),
      201,
    );
    expect(space.base_url).toBe(`http://service.test/spaces/${name}`);
    expect(space.region).toBe("local");
    await expectProblem(
      await call("POST", `/control/v1/projects/${project.project_id}/spaces`, { token: tenant.token, body: { name } }),
      409,
      "conflict",
    );
    await expectProblem(
      await call("POST", `/control/v1/projects/${project.project_id}/spaces`, {
        token: tenant.token,
        body: { name: "Not_A_Host" },
      }),
      422,
      "invalid_input",
    );
  });

  it("issues keys that work for a space whose region is as long as a host label allows", async () => {
    const tenant = await createTenant();
    const project = await json<{ project_id: string }>(
      await call("POST", "/control/v1/projects", { token: tenant.token, body: { name: "P" } }),
      201,
    );
    const region = `r${"e".repeat(61)}1`;
    const space = await json<{ space_id: string; name: string; region: string }>(
      await call("POST", `/control/v1/projects/${project.project_id}/spaces`, {
        token: tenant.token,
        body: { name: uniqueName("sp"), region },
      }),
      201,
    );
    expect(space.region).toBe(region);
    const source = await json<{ source_id: string }>(
      await call("POST", `/control/v1/spaces/${space.space_id}/sources`, {
        token: tenant.token,
        body: { name: "A", kind: "agent" },
      }),
      201,
    );
    const key = await createKey(tenant.token, source.source_id, ["track"]);
    expect(key.key).toContain(`_${region}_`);
    await json(await call("POST", `/spaces/${space.name}/v1/batch`, { token: key.key, body: { items: [message()] } }), 200);
  });

  it("defaults the verification ceiling by kind and refuses one above what the kind may declare", async () => {
    const space = await createSpace();
    const create = (body: unknown) =>
      call("POST", `/control/v1/spaces/${space.spaceId}/sources`, { token: space.tenant.token, body });
    expect(
      (await json<{ verification_ceiling: string }>(await create({ name: "a", kind: "agent" }), 201)).verification_ceiling,
    ).toBe("V2");
    expect(
      (await json<{ verification_ceiling: string }>(await create({ name: "b", kind: "agent", otp: true }), 201))
        .verification_ceiling,
    ).toBe("V3");
    expect(
      (await json<{ verification_ceiling: string }>(await create({ name: "c", kind: "system" }), 201)).verification_ceiling,
    ).toBe("V4");
    const ceilingOf = async (body: Record<string, unknown>) =>
      (await json<{ verification_ceiling: string }>(await create(body), 201)).verification_ceiling;
    expect(await ceilingOf({ name: "f", kind: "human_desk" })).toBe("V4");
    expect(await ceilingOf({ name: "g", kind: "analyst" })).toBe("V0");
    expect(await ceilingOf({ name: "h", kind: "analyst", otp: true })).toBe("V3");
    await expectProblem(await create({ name: "d", kind: "agent", verification_ceiling: "V3" }), 422, "invalid_input");
    await expectProblem(await create({ name: "e", kind: "agent", otp: true, verification_ceiling: "V4" }), 422, "invalid_input");
  });
});

describe("control API: keys and Idempotency-Key", () => {
  it("returns the first answer to the same key and body, 409 to another body, 422 without a valid key", async () => {
    const space = await createSpace();
    const create = (idempotencyKey: string | undefined, scopes: string[]) =>
      call("POST", `/control/v1/sources/${space.sourceId}/keys`, {
        token: space.tenant.token,
        headers: idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey },
        body: { scopes },
      });
    const first = await json<{ key_id: string; key: string }>(await create("same", ["track"]), 201);
    const again = await json<{ key_id: string; key: string }>(await create("same", ["track"]), 201);
    expect(again).toEqual(first);
    await expectProblem(await create("same", ["track", "context"]), 409, "conflict");
    await expectProblem(await create(undefined, ["track"]), 422, "invalid_input");
    await expectProblem(await create("", ["track"]), 422, "invalid_input");
    await expectProblem(await create("k".repeat(257), ["track"]), 422, "invalid_input");
    expect((await create("k".repeat(256), ["track"])).status).toBe(201);
  });

  it("creates one key for concurrent resends with the same Idempotency-Key", async () => {
    const space = await createSpace();
    const send = () =>
      call("POST", `/control/v1/sources/${space.sourceId}/keys`, {
        token: space.tenant.token,
        headers: { "idempotency-key": "concurrent" },
        body: { scopes: ["track"] },
      }).then((response) => json<{ key_id: string }>(response, 201));
    const answers = await Promise.all([send(), send(), send(), send()]);
    expect(new Set(answers.map((answer) => answer.key_id)).size).toBe(1);
  });

  it("keeps only successful answers: a refused write can be sent again with its key, and then succeeds", async () => {
    const space = await createSpace();
    const create = (sourceId: string) =>
      call("POST", `/control/v1/sources/${sourceId}/keys`, {
        token: space.tenant.token,
        headers: { "idempotency-key": "retry-me" },
        body: { scopes: ["track"] },
      });
    // Refused by the control object itself (no such source), under the key: had it been kept, the
    // request that follows (another path) would be a 409.
    await expectProblem(await create(crypto.randomUUID()), 404, "not_found");
    const created = await json<{ key_id: string }>(await create(space.sourceId), 201);
    expect(await json<{ key_id: string }>(await create(space.sourceId), 201)).toEqual(created);
  });

  it("answers the same revoked key to a second revocation under another Idempotency-Key", async () => {
    const space = await createSpace();
    const revoke = (idempotencyKey: string) =>
      call("POST", `/control/v1/keys/${space.keyId}/revoke`, {
        token: space.tenant.token,
        headers: { "idempotency-key": idempotencyKey },
      });
    const first = await json<Record<string, unknown>>(await revoke("first"), 200);
    const second = await json<Record<string, unknown>>(await revoke("second"), 200);
    expect(second).toEqual(first);
    expect(second.status).toBe("revoked");
  });

  it("never shows the key again outside creation and rotation", async () => {
    const space = await createSpace();
    const revoked = await json<Record<string, unknown>>(
      await call("POST", `/control/v1/keys/${space.keyId}/revoke`, {
        token: space.tenant.token,
        headers: { "idempotency-key": "r" },
      }),
      200,
    );
    expect(revoked.status).toBe("revoked");
    expect(revoked).not.toHaveProperty("key");
  });

  it("refuses to rotate a revoked or an expired key with 409, and another tenant's key with 404", async () => {
    const space = await createSpace();
    const rotate = (keyId: string, token = space.tenant.token) =>
      call("POST", `/control/v1/keys/${keyId}/rotate`, { token, headers: { "idempotency-key": crypto.randomUUID() } });
    const create = (expiresAt: string) =>
      call("POST", `/control/v1/sources/${space.sourceId}/keys`, {
        token: space.tenant.token,
        headers: { "idempotency-key": crypto.randomUUID() },
        body: { scopes: ["track"], expires_at: expiresAt },
      });
    const expiring = KeySchema.parse(await json(await create(new Date(Date.now() + 60_000).toISOString()), 201));
    const rotated = KeySchema.parse(await json(await rotate(expiring.key_id), 200));
    expect(rotated.key).toBeDefined();

    const control = env.CONTROL.get(env.CONTROL.idFromName("control"));
    await runInDurableObject(control, (instance: ControlObject) => {
      instance.clock = { now: () => Date.now() + 61_000 };
    });
    try {
      const problem = await expectProblem(await rotate(expiring.key_id), 409, "conflict");
      expect(problem.detail).toBe("the key has expired; create a new one");
    } finally {
      await runInDurableObject(control, (instance: ControlObject) => {
        instance.clock = { now: () => Date.now() };
      });
    }

    await json(
      await call("POST", `/control/v1/keys/${space.keyId}/revoke`, {
        token: space.tenant.token,
        headers: { "idempotency-key": crypto.randomUUID() },
      }),
      200,
    );
    const problem = await expectProblem(await rotate(space.keyId), 409, "conflict");
    expect(problem.detail).toBe("the key is revoked; create a new one");
    const stranger = await createTenant();
    await expectProblem(await rotate(space.keyId, stranger.token), 404, "not_found");
  });

  it("gives the analytics scope to keys of analyst sources only", async () => {
    const space = await createSpace();
    const createFor = (sourceId: string, scopes: string[]) =>
      call("POST", `/control/v1/sources/${sourceId}/keys`, {
        token: space.tenant.token,
        headers: { "idempotency-key": crypto.randomUUID() },
        body: { scopes },
      });
    const sourceOf = async (kind: string) =>
      (
        await json<{ source_id: string }>(
          await call("POST", `/control/v1/spaces/${space.spaceId}/sources`, {
            token: space.tenant.token,
            body: { name: kind, kind },
          }),
          201,
        )
      ).source_id;
    for (const kind of ["agent", "system", "human_desk"]) {
      const problem = await expectProblem(await createFor(await sourceOf(kind), ["track", "analytics"]), 422, "invalid_input");
      expect(problem.detail, kind).toBe("scopes.1: analyst_sources_only");
    }
    const analyst = KeySchema.parse(await json(await createFor(await sourceOf("analyst"), ["analytics"]), 201));
    expect(analyst.scopes).toEqual(["analytics"]);
  });

  it("refuses a scope named twice and a mapping key __proto__, as roles and configuration keys are refused", async () => {
    const space = await createSpace();
    const twice = await call("POST", `/control/v1/sources/${space.sourceId}/keys`, {
      token: space.tenant.token,
      headers: { "idempotency-key": crypto.randomUUID() },
      body: { scopes: ["track", "context", "track"] },
    });
    expect((await expectProblem(twice, 422, "invalid_input")).detail).toBe("scopes: duplicate_items");
    const source = (mapping: string) =>
      call("POST", `/control/v1/spaces/${space.spaceId}/sources`, {
        token: space.tenant.token,
        rawBody: `{"name": "crm", "kind": "system", "mapping": ${mapping}}`,
        headers: { "content-type": "application/json" },
      });
    const problem = await expectProblem(await source('{"__proto__": {"x": 1}, "email": "$.mail"}'), 422, "invalid_input");
    expect(problem.detail).toBe("mapping: forbidden_key");
    const created = SourceSchema.parse(await json(await source('{"email": "$.mail"}'), 201));
    expect(created.mapping).toEqual({ email: "$.mail" });
  });
});

describe("control API: versioned space configuration", () => {
  it("takes each documented bound and refuses one past it", async () => {
    const space = await createSpace();
    const put = (values: Record<string, unknown>) =>
      call("PUT", `/control/v1/spaces/${space.spaceId}/config`, { token: space.tenant.token, body: { values } });
    const bounds: [string, unknown, unknown][] = [
      ["clock_tolerance_s", 86_400, 86_401],
      ["clock_tolerance_s", 0, -1],
      ["coverage_tolerance", 1, 1.01],
      ["episode_highlights", 10, 11],
      ["retention_days", 36_500, 36_501],
      ["retention_days", 1, 0],
      ["rate_limits", { space_per_minute: 1_000_000 }, { space_per_minute: 1_000_001 }],
      ["rate_limits", { key_per_minute: 1 }, { key_per_minute: 0 }],
      ["suggestion_threshold", 0.9999, 1],
      ["suggestion_threshold", 0.5, 0.49],
      ["summarizer_daily_limit", 1_000_000, 1_000_001],
      ["summarizer_model", "@cf/meta/llama-3.1-8b-instruct", "gpt-4o"],
      ["hot_tier_budget_mb", 1024, 1025],
      ["hot_tier_budget_mb", 1, 0],
      ["silent_after_h", 2160, 2161],
      ["silent_after_h", 1, 0],
      ["session_windows", { whatsapp: 90 * 86_400 }, { whatsapp: 90 * 86_400 + 1 }],
      ["session_windows", { task: 1 }, { task: 0 }],
      ["history_text_level", "no_customer", "V5"],
    ];
    for (const [name, taken, refused] of bounds) {
      expect((await put({ [name]: taken })).status, `${name} ${JSON.stringify(taken)}`).toBe(200);
      const problem = await expectProblem(await put({ [name]: refused }), 422, "invalid_input");
      expect(problem.detail, `${name} ${JSON.stringify(refused)}`).toContain(name);
    }
  });

  it("refuses an identity_traits key __proto__ with 422 instead of dropping it", async () => {
    const space = await createSpace();
    const path = `/control/v1/spaces/${space.spaceId}/config`;
    const put = (traits: string) =>
      call("PUT", path, {
        token: space.tenant.token,
        rawBody: `{"values": {"identity_traits": ${traits}}}`,
        headers: { "content-type": "application/json" },
      });
    const problem = await expectProblem(await put('{"__proto__": "postal_code", "plz": "postal_code"}'), 422, "invalid_input");
    expect(problem.detail).toBe("values.identity_traits: forbidden_key");
    expect(SpaceConfigSchema.parse(await json(await call("GET", path, { token: space.tenant.token }), 200)).version).toBe(0);
    const stored = SpaceConfigSchema.parse(await json(await put('{"plz": "postal_code", "proto": null}'), 200));
    expect(stored.values.identity_traits).toEqual({ plz: "postal_code", proto: null });
  });

  it("stores every PUT as a new version, serves old versions, and refuses unknown keys", async () => {
    const space = await createSpace();
    const path = `/control/v1/spaces/${space.spaceId}/config`;
    expect(await json(await call("GET", path, { token: space.tenant.token }), 200)).toMatchObject({ version: 0, values: {} });
    const v1 = await json(
      await call("PUT", path, { token: space.tenant.token, body: { values: { clock_tolerance_s: 60 } } }),
      200,
    );
    expect(v1).toMatchObject({ version: 1, values: { clock_tolerance_s: 60 } });
    await json(await call("PUT", path, { token: space.tenant.token, body: { values: { clock_tolerance_s: 120 } } }), 200);
    expect(await json(await call("GET", `${path}?version=1`, { token: space.tenant.token }), 200)).toMatchObject({ version: 1 });
    expect(await json(await call("GET", path, { token: space.tenant.token }), 200)).toMatchObject({ version: 2 });
    await expectProblem(await call("GET", `${path}?version=9`, { token: space.tenant.token }), 404, "not_found");
    await expectProblem(
      await call("PUT", path, { token: space.tenant.token, body: { values: { no_such_key: 1 } } }),
      422,
      "invalid_input",
    );
  });

  it("is in force in the space before the PUT answers: intake reads clock_tolerance_s", async () => {
    const space = await createSpace();
    const inTwoMinutes = new Date(Date.now() + 120_000).toISOString();
    await json(await batch(space, [message({ idempotency_key: "a", occurred_at: inTwoMinutes })]), 200);
    await json(
      await call("PUT", `/control/v1/spaces/${space.spaceId}/config`, {
        token: space.tenant.token,
        body: { values: { clock_tolerance_s: 10 } },
      }),
      200,
    );
    await json(await batch(space, [message({ idempotency_key: "b", occurred_at: inTwoMinutes })]), 200);
    const stub = env.SPACE.get(env.SPACE.idFromName(space.name));
    const rows = await runInDurableObject(stub, (_instance, state) =>
      state.storage.sql
        .exec<{ idempotency_key: string; clock_corrected: number }>(
          "SELECT idempotency_key, clock_corrected FROM items ORDER BY idempotency_key",
        )
        .toArray(),
    );
    expect(rows).toEqual([
      { idempotency_key: "a", clock_corrected: 0 },
      { idempotency_key: "b", clock_corrected: 1 },
    ]);
  });
});
