import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { KeySchema, pageOf } from "../../src/contract/control";
import type { ControlObject } from "../../src/control/object";
import { expectProblem, personToken } from "../support/identity";
import { call, createKey, createSpace, createTenant, json, type Space } from "../support/seed";

/** `GET /v1/sources/{id}/keys` (docs/api/control.md): a source's keys, never their secrets. */

const KeyPage = pageOf(KeySchema, "KeyPage");

const list = async (space: Space, query = "", token = space.tenant.token) =>
  KeyPage.parse(await json(await call("GET", `/control/v1/sources/${space.sourceId}/keys${query}`, { token }), 200));

const keyed = (token: string) => ({ token, headers: { "idempotency-key": crypto.randomUUID() } });

/** Runs `work` with the ControlObject's clock `ms` ahead. */
async function later<T>(ms: number, work: () => Promise<T>): Promise<T> {
  const control = env.CONTROL.get(env.CONTROL.idFromName("control"));
  await runInDurableObject(control, (instance: ControlObject) => {
    instance.clock = { now: () => Date.now() + ms };
  });
  try {
    return await work();
  } finally {
    await runInDurableObject(control, (instance: ControlObject) => {
      instance.clock = { now: () => Date.now() };
    });
  }
}

describe("control API: listing a source's keys", () => {
  it("lists every key of the source, oldest first, without secrets, rotation and revocation shown", async () => {
    const space = await createSpace();
    const token = space.tenant.token;
    const rotated = await createKey(token, space.sourceId, ["track"]);
    const revoked = await createKey(token, space.sourceId, ["context"], "test");
    await json(await call("POST", `/control/v1/keys/${rotated.key_id}/rotate`, keyed(token)), 200);
    await json(await call("POST", `/control/v1/keys/${revoked.key_id}/revoke`, keyed(token)), 200);

    const page = await list(space);
    expect(page.next_cursor).toBeNull();
    expect(page.data.map((key) => key.key_id)).toEqual([space.keyId, rotated.key_id, revoked.key_id]);
    for (const key of page.data) {
      expect(key).not.toHaveProperty("key");
      expect(key.source_id).toBe(space.sourceId);
      expect(key.space_id).toBe(space.spaceId);
    }
    const [first, second, third] = page.data;
    expect(first).toMatchObject({ status: "active", rotated_at: null, revoked_at: null });
    expect(second).toMatchObject({ status: "active", scopes: ["track"] });
    expect(second?.rotated_at).not.toBeNull();
    expect(third).toMatchObject({ status: "revoked", mode: "test", scopes: ["context"] });
    expect(third?.revoked_at).not.toBeNull();
    // Nothing of a secret anywhere in the answer.
    const text = JSON.stringify(page);
    for (const secret of [space.key, rotated.key, revoked.key]) expect(text).not.toContain(secret.split("_").at(-1));
  });

  it("pages with limit and a cursor signed for this list", async () => {
    const space = await createSpace();
    for (let i = 0; i < 4; i++) await createKey(space.tenant.token, space.sourceId, ["track"]);
    const all = await list(space);
    expect(all.data).toHaveLength(5);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      const page = await list(space, query);
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data.map((key) => key.key_id));
      cursor = page.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(all.data.map((key) => key.key_id));

    const path = `/control/v1/sources/${space.sourceId}/keys`;
    const options = { token: space.tenant.token };
    const issued = (await list(space, "?limit=2")).next_cursor as string;
    const forged = `${issued.slice(0, issued.lastIndexOf("."))}.${"A".repeat(43)}`;
    await expectProblem(await call("GET", `${path}?cursor=${encodeURIComponent(forged)}`, options), 422, "invalid_input");
    // A cursor the service issued for another list is not one of this list.
    for (let i = 0; i < 2; i++) {
      await json(
        await call("POST", `/control/v1/spaces/${space.spaceId}/sources`, { ...options, body: { name: `s${i}`, kind: "agent" } }),
        201,
      );
    }
    const sources = await json<{ next_cursor: string }>(
      await call("GET", `/control/v1/spaces/${space.spaceId}/sources?limit=1`, options),
      200,
    );
    await expectProblem(
      await call("GET", `${path}?cursor=${encodeURIComponent(sources.next_cursor)}`, options),
      422,
      "invalid_input",
    );
    await expectProblem(await call("GET", `${path}?limit=0`, options), 422, "invalid_input");
    await expectProblem(await call("GET", `${path}?limit=201`, options), 422, "invalid_input");
  });

  it("shows a key past its expires_at as expired, in the list and in a revocation's answer", async () => {
    const space = await createSpace();
    const expiring = KeySchema.parse(
      await json(
        await call("POST", `/control/v1/sources/${space.sourceId}/keys`, {
          ...keyed(space.tenant.token),
          body: { scopes: ["track"], expires_at: new Date(Date.now() + 60_000).toISOString() },
        }),
        201,
      ),
    );
    expect(expiring.status).toBe("active");
    await later(61_000, async () => {
      const statuses = Object.fromEntries((await list(space)).data.map((key) => [key.key_id, key.status]));
      expect(statuses).toEqual({ [space.keyId]: "active", [expiring.key_id]: "expired" });
      const revoked = KeySchema.parse(
        await json(await call("POST", `/control/v1/keys/${expiring.key_id}/revoke`, keyed(space.tenant.token)), 200),
      );
      expect(revoked.status).toBe("revoked");
      expect((await list(space)).data.find((key) => key.key_id === expiring.key_id)?.status).toBe("revoked");
    });
  });

  it("answers 404 for another tenant's source or an unknown id, and 403 to a person without the role", async () => {
    const space = await createSpace();
    const stranger = await createTenant();
    await expectProblem(
      await call("GET", `/control/v1/sources/${space.sourceId}/keys`, { token: stranger.token }),
      404,
      "not_found",
    );
    await expectProblem(
      await call("GET", `/control/v1/sources/${crypto.randomUUID()}/keys`, { token: space.tenant.token }),
      404,
      "not_found",
    );
    const reviewer = await personToken(space, ["review"]);
    await expectProblem(await call("GET", `/control/v1/sources/${space.sourceId}/keys`, { token: reviewer }), 403, "forbidden");
    const integrator = await personToken(space, ["integration"]);
    expect((await list(space, "", integrator)).data.map((key) => key.key_id)).toEqual([space.keyId]);
    // A source key is no person.
    await expectProblem(await call("GET", `/control/v1/sources/${space.sourceId}/keys`, { token: space.key }), 403, "forbidden");
  });
});
