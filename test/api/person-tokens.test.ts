import { env, runInDurableObject } from "cloudflare:test";
import { drizzle } from "drizzle-orm/durable-sqlite";
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { TOKEN_REFUSED } from "../../src/auth/person-token";
import { PersonSchema } from "../../src/contract/control";
import { ProblemSchema } from "../../src/contract/problem";
import { getPerson, updatePerson } from "../../src/control/people";
import { call, createSpace, createTenant, json, type Space, uniqueName } from "../support/seed";

const PASSWORD = "correct horse battery staple";

async function expectUnauthenticated(response: Response) {
  const text = await response.text();
  expect(response.status, text).toBe(401);
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  expect(JSON.parse(text).code).toBe("unauthenticated");
}

async function login(email: string): Promise<string> {
  const answer = await json<{ token: string }>(
    await call("POST", "/control/v1/auth/login", { body: { email, password: PASSWORD } }),
    200,
  );
  return answer.token;
}

/** A person of the space's tenant with `roles`, logged in. */
async function addPerson(space: Space, roles: string[], extra: Record<string, unknown> = {}) {
  const email = `${uniqueName("p")}@example.test`;
  const person = PersonSchema.parse(
    await json(
      await call("POST", "/control/v1/people", {
        token: space.tenant.token,
        body: { email, password: PASSWORD, roles, ...extra },
      }),
      201,
    ),
  );
  return { id: person.person_id, email, token: await login(email) };
}

const whoami = (space: Space, token: string) => call("GET", `/spaces/${space.name}/v1/whoami`, { token });
const me = (token: string) => call("GET", "/control/v1/users/me", { token });

describe("POST /v1/auth/logout: ends the token it is called with", () => {
  it("answers 204; from the next request the token is 401 on a space route and a control route, other tokens stay", async () => {
    const space = await createSpace();
    const person = await addPerson(space, ["review"]);
    const other = await login(person.email);
    expect((await whoami(space, person.token)).status).toBe(200);
    expect((await me(person.token)).status).toBe(200);

    const logout = await call("POST", "/control/v1/auth/logout", { token: person.token });
    expect(logout.status).toBe(204);
    expect(await logout.text()).toBe("");

    await expectUnauthenticated(await whoami(space, person.token));
    await expectUnauthenticated(await me(person.token));
    await expectUnauthenticated(await call("POST", "/control/v1/auth/logout", { token: person.token }));
    // The same person's other token was not ended.
    expect((await whoami(space, other)).status).toBe(200);
    expect((await me(other)).status).toBe(200);
  });

  it("reaches every space of the tenant, one created after the logout, and survives a restart of the space", async () => {
    const space = await createSpace();
    const token = await login(space.tenant.email);
    expect((await whoami(space, token)).status).toBe(200);
    expect((await call("POST", "/control/v1/auth/logout", { token })).status).toBe(204);

    const stub = env.SPACE.get(env.SPACE.idFromName(space.name));
    await runInDurableObject(stub, (_instance, state) => state.abort("restart")).catch(() => undefined);
    await expectUnauthenticated(await whoami(space, token));

    const projects = await json<{ data: { project_id: string }[] }>(
      await call("GET", "/control/v1/projects", { token: space.tenant.token }),
      200,
    );
    const later = await json<{ name: string }>(
      await call("POST", `/control/v1/projects/${projects.data[0]?.project_id}/spaces`, {
        token: space.tenant.token,
        body: { name: uniqueName("s") },
      }),
      201,
    );
    const laterSpace = { ...space, name: later.name };
    await expectUnauthenticated(await whoami(laterSpace, token));
    expect((await whoami(laterSpace, space.tenant.token)).status).toBe(200);
  });

  it("needs a person token: none is 401, a source key is 403", async () => {
    const space = await createSpace();
    await expectUnauthenticated(await call("POST", "/control/v1/auth/logout"));
    expect((await call("POST", "/control/v1/auth/logout", { token: space.key })).status).toBe(403);
  });
});

describe("a person token that does not pass: one answer, whatever the reason", () => {
  it("is 401 with the same detail when malformed, badly signed, expired, ended or without an id, on a space and on the control API", async () => {
    const space = await createSpace();
    const person = await addPerson(space, ["review"]);
    await call("POST", "/control/v1/auth/logout", { token: person.token });
    const now = Math.floor(Date.now() / 1000);
    const signed = (secret: string, iat: number) =>
      new SignJWT({ tid: space.tenant.tenantId, roles: ["admin"], vendor_sources: [], jti: "zqtokenid", gen: 0 })
        .setProtectedHeader({ alg: "HS256", typ: "JWT" })
        .setSubject(person.id)
        .setIssuer("customer-memory-service/control")
        .setIssuedAt(iat)
        .setExpirationTime(iat + 900)
        .sign(new TextEncoder().encode(secret));
    const withoutJti = await new SignJWT({ tid: space.tenant.tenantId, roles: ["admin"], vendor_sources: [] })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(person.id)
      .setIssuer("customer-memory-service/control")
      .setIssuedAt(now)
      .setExpirationTime(now + 900)
      .sign(new TextEncoder().encode("test-jwt-secret"));
    const refused = {
      malformed: "not.a.token",
      badlySigned: await signed("another-secret", now),
      expired: await signed("test-jwt-secret", now - 3600),
      ended: person.token,
      // Issued before tokens carried an id and a generation: refused, the person logs in again.
      withoutJti,
    };
    const details = new Set<string>();
    for (const token of Object.values(refused)) {
      for (const response of [await whoami(space, token), await me(token)]) {
        const text = await response.text();
        expect(response.status, text).toBe(401);
        details.add(JSON.parse(text).detail);
      }
    }
    expect([...details]).toEqual([TOKEN_REFUSED]);
  });

  it("is 401, not 403 or 422, on a route without an audit action when the person lacks its role or sends bad input", async () => {
    const space = await createSpace();
    const person = await addPerson(space, ["review"]);
    const admin = await login(space.tenant.email);
    // Live, the review person is refused these for the role (403) and the admin for the query (422).
    const refusedForRole = [
      "/control/v1/people",
      "/control/v1/projects",
      "/control/v1/usage",
      `/control/v1/spaces/${space.spaceId}/config`,
    ];
    for (const path of refusedForRole) expect((await call("GET", path, { token: person.token })).status, path).toBe(403);
    expect((await call("GET", "/control/v1/projects?limit=0", { token: admin })).status).toBe(422);

    expect((await call("POST", "/control/v1/auth/logout", { token: person.token })).status).toBe(204);
    expect((await call("POST", "/control/v1/auth/logout", { token: admin })).status).toBe(204);
    for (const path of refusedForRole) {
      const problem = ProblemSchema.parse(await json(await call("GET", path, { token: person.token }), 401));
      expect(problem.detail, path).toBe(TOKEN_REFUSED);
    }
    const badQuery = ProblemSchema.parse(await json(await call("GET", "/control/v1/projects?limit=0", { token: admin }), 401));
    expect(badQuery.detail).toBe(TOKEN_REFUSED);
  });

  it("is 401 on a route without an audit action for a person whose roles changed or who was removed", async () => {
    const space = await createSpace();
    const changed = await addPerson(space, ["review", "security"]);
    const removed = await addPerson(space, ["review"]);
    await json(
      await call("PATCH", `/control/v1/people/${changed.id}`, { token: space.tenant.token, body: { roles: ["review"] } }),
      200,
    );
    expect((await call("DELETE", `/control/v1/people/${removed.id}`, { token: space.tenant.token })).status).toBe(204);
    for (const token of [changed.token, removed.token]) {
      await expectUnauthenticated(await call("GET", "/control/v1/people", { token }));
    }
  });
});

describe("people and roles: a change ends the person's tokens on the next request", () => {
  it("DELETE /v1/people/{id}: the removed person's token is 401 on a space and on the control API", async () => {
    const space = await createSpace();
    const person = await addPerson(space, ["review"]);
    expect((await whoami(space, person.token)).status).toBe(200);

    const removed = await call("DELETE", `/control/v1/people/${person.id}`, { token: space.tenant.token });
    expect(removed.status).toBe(204);

    await expectUnauthenticated(await whoami(space, person.token));
    await expectUnauthenticated(await me(person.token));
    await expectUnauthenticated(
      await call("POST", "/control/v1/auth/login", { body: { email: person.email, password: PASSWORD } }),
    );
    expect((await call("DELETE", `/control/v1/people/${person.id}`, { token: space.tenant.token })).status).toBe(404);
  });

  it("PATCH /v1/people/{id} removing a role: the old token is 401; a new login carries the new roles", async () => {
    const space = await createSpace();
    const person = await addPerson(space, ["review", "analysis"]);
    const profileRead = (token: string) => call("GET", `/spaces/${space.name}/v1/profiles/nope`, { token });
    expect((await profileRead(person.token)).status).toBe(404);

    const changed = PersonSchema.parse(
      await json(
        await call("PATCH", `/control/v1/people/${person.id}`, { token: space.tenant.token, body: { roles: ["analysis"] } }),
        200,
      ),
    );
    expect(changed.roles).toEqual(["analysis"]);

    await expectUnauthenticated(await profileRead(person.token));
    await expectUnauthenticated(await me(person.token));
    const fresh = await login(person.email);
    expect((await profileRead(fresh)).status).toBe(403);
    const who = await json<{ principal: { roles: string[] } }>(await whoami(space, fresh), 200);
    expect(who.principal.roles).toEqual(["analysis"]);
  });

  it("a change of vendor bindings ends tokens too; a change of name alone does not", async () => {
    const space = await createSpace();
    const person = await addPerson(space, ["vendor"], { vendor_sources: [space.sourceId] });
    const renamed = await call("PATCH", `/control/v1/people/${person.id}`, { token: space.tenant.token, body: { name: "Sam" } });
    expect(PersonSchema.parse(await json(renamed, 200)).name).toBe("Sam");
    expect((await whoami(space, person.token)).status).toBe(200);

    await json(
      await call("PATCH", `/control/v1/people/${person.id}`, { token: space.tenant.token, body: { vendor_sources: [] } }),
      200,
    );
    await expectUnauthenticated(await whoami(space, person.token));
  });

  it("refuses roles or vendor_sources naming one twice with 422, and ends nothing", async () => {
    const space = await createSpace();
    const person = await addPerson(space, ["review", "security"]);
    const patch = (body: unknown) => call("PATCH", `/control/v1/people/${person.id}`, { token: space.tenant.token, body });
    const twice = [
      [{ roles: ["review", "review"] }, "roles: duplicate_items"],
      [{ vendor_sources: [space.sourceId, space.sourceId] }, "vendor_sources: duplicate_items"],
    ] as const;
    for (const [body, detail] of twice) {
      expect(ProblemSchema.parse(await json(await patch(body), 422)).detail).toBe(detail);
    }
    const created = await call("POST", "/control/v1/people", {
      token: space.tenant.token,
      body: { email: `${uniqueName("p")}@example.test`, password: PASSWORD, roles: ["admin", "admin"] },
    });
    expect(ProblemSchema.parse(await json(created, 422)).detail).toBe("roles: duplicate_items");

    expect(PersonSchema.parse(await json(await me(person.token), 200)).roles).toEqual(["review", "security"]);
    // The same roles in another order are no change: the token stays.
    expect(PersonSchema.parse(await json(await patch({ roles: ["security", "review"] }), 200)).roles).toEqual([
      "security",
      "review",
    ]);
    expect((await me(person.token)).status).toBe(200);
  });

  it("compares roles as sets: a stored list naming a role twice ends the tokens when a role is lost or gained", async () => {
    const space = await createSpace();
    const person = await addPerson(space, ["review", "security"]);
    const control = env.CONTROL.get(env.CONTROL.idFromName("control"));
    const generations = await runInDurableObject(control, (_instance, state) => {
      const db = drizzle(state.storage);
      const now = Date.now();
      const before = getPerson(db, person.id)?.tokenGeneration ?? -1;
      // The domain function is reached without the schema: a duplicate must not hide a lost role.
      const lost = updatePerson(db, space.tenant.tenantId, person.id, { roles: ["review", "review"] }, now).tokenGeneration;
      const gained = updatePerson(db, space.tenant.tenantId, person.id, { roles: ["review", "analysis"] }, now).tokenGeneration;
      const same = updatePerson(
        db,
        space.tenant.tenantId,
        person.id,
        { roles: ["analysis", "review", "review"] },
        now,
      ).tokenGeneration;
      return { before, lost, gained, same };
    });
    expect(generations).toEqual({
      before: generations.before,
      lost: generations.before + 1,
      gained: generations.before + 2,
      same: generations.before + 2,
    });
  });

  it("keeps the tenant's last admin, and never touches another tenant's person", async () => {
    const space = await createSpace();
    const me_ = PersonSchema.parse(await json(await me(space.tenant.token), 200));
    expect((await call("DELETE", `/control/v1/people/${me_.person_id}`, { token: space.tenant.token })).status).toBe(409);
    const demote = await call("PATCH", `/control/v1/people/${me_.person_id}`, {
      token: space.tenant.token,
      body: { roles: ["review"] },
    });
    expect(demote.status).toBe(409);
    expect((await me(space.tenant.token)).status).toBe(200);

    const stranger = await createTenant();
    expect((await call("DELETE", `/control/v1/people/${me_.person_id}`, { token: stranger.token })).status).toBe(404);
    const patch = await call("PATCH", `/control/v1/people/${me_.person_id}`, { token: stranger.token, body: { name: "x" } });
    expect(patch.status).toBe(404);
  });
});
