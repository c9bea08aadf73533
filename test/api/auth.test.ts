import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { signPersonToken } from "../../src/auth/person-token";
import { formatSourceKey, parseSourceKey } from "../../src/auth/source-key";
import type { SpaceObject } from "../../src/space/object";
import { batch, call, createKey, createSpace, createTenant, json, message, type Space } from "../support/seed";

async function expectProblem(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  const problem = await json(response);
  expect(problem.code).toBe(code);
  expect(problem.request_id).toBe(response.headers.get("request-id"));
  return problem;
}

function withSecret(key: string, change: (secret: string) => string): string {
  const parsed = parseSourceKey(key, "cms");
  if (!parsed) throw new Error("not a key");
  return formatSourceKey({ ...parsed, secret: change(parsed.secret) });
}

const whoami = (space: Space, token?: string) => call("GET", `/spaces/${space.name}/v1/whoami`, token ? { token } : {});

describe("source keys: 401 unauthenticated", () => {
  it("refuses a missing, malformed, mistyped or unknown key", async () => {
    const space = await createSpace();
    await expectProblem(await whoami(space), 401, "unauthenticated");
    await expectProblem(
      await call("GET", `/spaces/${space.name}/v1/whoami`, { headers: { authorization: `Basic ${space.key}` } }),
      401,
      "unauthenticated",
    );
    await expectProblem(await whoami(space, "cms_live_nonsense"), 401, "unauthenticated");
    // One character changed in the checksummed part: refused at the edge.
    const mistyped = withSecret(space.key, (secret) => (secret[0] === "a" ? "b" : "a") + secret.slice(1));
    await expectProblem(await whoami(space, mistyped), 401, "unauthenticated");
    // Well formed with a valid checksum, but never issued.
    const unknown = formatSourceKey({
      ...(parseSourceKey(space.key, "cms") as NonNullable<ReturnType<typeof parseSourceKey>>),
      keyId: "aaaaaaaaaaaa",
    });
    await expectProblem(await whoami(space, unknown), 401, "unauthenticated");
    // The right key id with another secret (valid checksum): the digest does not match.
    const other = (await createSpace()).key;
    const forged = withSecret(space.key, () => (parseSourceKey(other, "cms") as { secret: string }).secret);
    await expectProblem(await whoami(space, forged), 401, "unauthenticated");
  });

  it("refuses a rotated key from the very next request, and takes the new one", async () => {
    const space = await createSpace();
    expect((await whoami(space, space.key)).status).toBe(200);
    const rotated = await json<{ key: string }>(
      await call("POST", `/control/v1/keys/${space.keyId}/rotate`, {
        token: space.tenant.token,
        headers: { "idempotency-key": "rot-1" },
      }),
      200,
    );
    await expectProblem(await batch(space, [message()]), 401, "unauthenticated");
    expect((await batch(space, [message()], rotated.key)).status).toBe(200);
  });

  it("refuses a revoked key from the very next request, before looking at the body", async () => {
    const space = await createSpace();
    expect((await batch(space, [message()])).status).toBe(200);
    await json(
      await call("POST", `/control/v1/keys/${space.keyId}/revoke`, {
        token: space.tenant.token,
        headers: { "idempotency-key": "rev-1" },
      }),
      200,
    );
    await expectProblem(await batch(space, [message()]), 401, "unauthenticated");
    // A malformed body with a revoked key: the credential is judged first.
    await expectProblem(
      await call("POST", `/spaces/${space.name}/v1/batch`, {
        token: space.key,
        rawBody: "{",
        headers: { "content-type": "application/json" },
      }),
      401,
      "unauthenticated",
    );
  });

  it("applies concurrent key changes of one space in order: none is lost, a revocation is never undone", async () => {
    const space = await createSpace();
    const [created, revoked] = await Promise.all([
      Promise.all(Array.from({ length: 5 }, () => createKey(space.tenant.token, space.sourceId, ["track"]))),
      call("POST", `/control/v1/keys/${space.keyId}/revoke`, {
        token: space.tenant.token,
        headers: { "idempotency-key": "rev-c" },
      }),
    ]);
    expect(revoked.status).toBe(200);
    for (const key of created) expect((await whoami(space, key.key)).status).toBe(200);
    await expectProblem(await whoami(space, space.key), 401, "unauthenticated");
  });

  it("refuses an expired key", async () => {
    const space = await createSpace();
    const expiring = await json<{ key: string }>(
      await call("POST", `/control/v1/sources/${space.sourceId}/keys`, {
        token: space.tenant.token,
        headers: { "idempotency-key": "exp-1" },
        body: { scopes: ["track"], expires_at: new Date(Date.now() + 60_000).toISOString() },
      }),
      201,
    );
    expect((await batch(space, [message()], expiring.key)).status).toBe(200);
    const stub = env.SPACE.get(env.SPACE.idFromName(space.name));
    await runInDurableObject(stub, (instance: SpaceObject) => {
      instance.clock = { now: () => Date.now() + 120_000 };
    });
    await expectProblem(await batch(space, [message()], expiring.key), 401, "unauthenticated");
  });

  it("keeps the replica across a restart of the space's object", async () => {
    const space = await createSpace();
    const stub = env.SPACE.get(env.SPACE.idFromName(space.name));
    await runInDurableObject(stub, (_instance, state) => state.abort("restart")).catch(() => undefined);
    expect((await whoami(space, space.key)).status).toBe(200);
  });
});

describe("source keys: 403", () => {
  it("answers forbidden to a key used on another space's address", async () => {
    const space = await createSpace();
    const other = await createSpace();
    await expectProblem(await batch(other, [message()], space.key), 403, "forbidden");
  });

  it("answers scope_missing to a key without the route's scope", async () => {
    const space = await createSpace();
    const contextOnly = await createKey(space.tenant.token, space.sourceId, ["context"]);
    await expectProblem(await batch(space, [message()], contextOnly.key), 403, "scope_missing");
  });
});

describe("person tokens on data routes", () => {
  it("answers forbidden to a person on a key-only route", async () => {
    const space = await createSpace();
    await expectProblem(await batch(space, [message()], space.tenant.token), 403, "forbidden");
  });

  it("lets a person of the space's tenant in, and no one else", async () => {
    const space = await createSpace();
    const answer = await json<{ principal: { kind: string } }>(await whoami(space, space.tenant.token), 200);
    expect(answer.principal.kind).toBe("person");
    const stranger = await createTenant();
    await expectProblem(await whoami(space, stranger.token), 403, "forbidden");
  });

  it("refuses an expired, tampered or foreign-signed token with 401", async () => {
    const space = await createSpace();
    const person = {
      kind: "person" as const,
      personId: "p",
      tenantId: space.tenant.tenantId,
      roles: ["admin" as const],
      vendorSources: [],
    };
    const key = new TextEncoder().encode("test-jwt-secret");
    const expired = await signPersonToken(key, person, 0, Date.now() - 16 * 60_000);
    await expectProblem(await whoami(space, expired.token), 401, "unauthenticated");
    const foreign = await signPersonToken(new TextEncoder().encode("another secret"), person, 0, Date.now());
    await expectProblem(await whoami(space, foreign.token), 401, "unauthenticated");
    const [header, , signature] = space.tenant.token.split(".");
    const payload = btoa(
      JSON.stringify({ sub: "x", tid: space.tenant.tenantId, roles: ["admin"], vendor_sources: [] }),
    ).replaceAll("=", "");
    await expectProblem(await whoami(space, `${header}.${payload}.${signature}`), 401, "unauthenticated");
  });
});
