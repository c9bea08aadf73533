import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { drizzle } from "drizzle-orm/durable-sqlite";
import { describe, expect, it } from "vitest";
import { KeySchema, PersonSchema, SourceSchema, SpaceSchema } from "../../src/contract/control";
import { ProblemSchema } from "../../src/contract/problem";
import type { ControlObject } from "../../src/control/object";
import { owedVersion, owePushes, settlePush } from "../../src/control/replication";
import type { SpaceRow } from "../../src/control/spaces";
import type { SpaceObject } from "../../src/space/object";
import { call, createSpace, json, type Space, uniqueName } from "../support/seed";

const PASSWORD = "correct horse battery staple";
const control = () => env.CONTROL.get(env.CONTROL.idFromName("control"));

/** The space's object refuses the ControlObject's next push, then takes pushes again (RPC calls only a class's methods). */
async function failNextPush(spaceName: string): Promise<void> {
  await runInDurableObject(env.SPACE.get(env.SPACE.idFromName(spaceName)), (instance: SpaceObject) => {
    const methods = Object.getPrototypeOf(instance) as SpaceObject;
    const replicate = methods.replicate;
    methods.replicate = async function (this: SpaceObject, snapshot) {
      if (this !== instance) return replicate.call(this, snapshot);
      methods.replicate = replicate;
      throw new Error("space unavailable");
    };
  });
}

/** The ControlObject stops (a deploy, an eviction) and then its alarm runs. */
async function restartAndRunAlarm(): Promise<void> {
  await runInDurableObject(control(), (_instance, state) => state.abort("restart")).catch(() => undefined);
  expect(await runDurableObjectAlarm(control())).toBe(true);
}

async function expectUnavailable(response: Response): Promise<void> {
  const text = await response.text();
  expect(response.status, text).toBe(503);
  expect(ProblemSchema.parse(JSON.parse(text)).code).toBe("unavailable");
  expect(response.headers.get("retry-after")).toBe("5");
}

async function addPerson(space: Space, roles: string[]) {
  const email = `${uniqueName("p")}@example.test`;
  const person = PersonSchema.parse(
    await json(
      await call("POST", "/control/v1/people", { token: space.tenant.token, body: { email, password: PASSWORD, roles } }),
      201,
    ),
  );
  const { token } = await json<{ token: string }>(
    await call("POST", "/control/v1/auth/login", { body: { email, password: PASSWORD } }),
    200,
  );
  return { id: person.person_id, token };
}

const whoami = (space: Space, token: string) => call("GET", `/spaces/${space.name}/v1/whoami`, { token });

describe("a change whose push to a space fails reaches the space all the same", () => {
  it("DELETE /v1/people/{id}: 503, and the alarm pushes the cut after a restart; a retry is 404", async () => {
    const space = await createSpace();
    const person = await addPerson(space, ["review"]);
    expect((await whoami(space, person.token)).status).toBe(200);

    await failNextPush(space.name);
    await expectUnavailable(await call("DELETE", `/control/v1/people/${person.id}`, { token: space.tenant.token }));
    expect((await call("DELETE", `/control/v1/people/${person.id}`, { token: space.tenant.token })).status).toBe(404);

    await restartAndRunAlarm();
    expect((await whoami(space, person.token)).status).toBe(401);
  });

  it("POST /v1/auth/logout: 503, and the alarm pushes the cut", async () => {
    const space = await createSpace();
    const person = await addPerson(space, ["review"]);
    await failNextPush(space.name);
    await expectUnavailable(await call("POST", "/control/v1/auth/logout", { token: person.token }));
    expect((await whoami(space, person.token)).status).toBe(200);

    expect(await runDurableObjectAlarm(control())).toBe(true);
    expect((await whoami(space, person.token)).status).toBe(401);
  });

  it("a new space and a new source answer 201 (the alarm pushes them); no retry makes a 409 or a second source", async () => {
    const space = await createSpace();
    const projects = await json<{ data: { project_id: string }[] }>(
      await call("GET", "/control/v1/projects", { token: space.tenant.token }),
      200,
    );
    const name = uniqueName("s");
    await failNextPush(name);
    const created = SpaceSchema.parse(
      await json(
        await call("POST", `/control/v1/projects/${projects.data[0]?.project_id}/spaces`, {
          token: space.tenant.token,
          body: { name },
        }),
        201,
      ),
    );
    const later = { ...space, name: created.name };
    expect((await whoami(later, space.tenant.token)).status).not.toBe(200);

    await failNextPush(space.name);
    const source = await call("POST", `/control/v1/spaces/${space.spaceId}/sources`, {
      token: space.tenant.token,
      body: { name: "Desk", kind: "human_desk" },
    });
    SourceSchema.parse(await json(source, 201));

    expect(await runDurableObjectAlarm(control())).toBe(true);
    expect((await whoami(later, space.tenant.token)).status).toBe(200);
  });
});

describe("key writes with Idempotency-Key whose push fails", () => {
  it("creation: 503; a retry with the same key answers the same key, which works, and makes no second one", async () => {
    const space = await createSpace();
    const create = () =>
      call("POST", `/control/v1/sources/${space.sourceId}/keys`, {
        token: space.tenant.token,
        headers: { "idempotency-key": "create-once" },
        body: { scopes: ["track"] },
      });
    await failNextPush(space.name);
    await expectUnavailable(await create());
    const first = KeySchema.parse(await json(await create(), 201));
    const again = KeySchema.parse(await json(await create(), 201));
    expect(again).toEqual(first);
    expect(first.key).toBeDefined();
    expect((await whoami(space, first.key ?? "")).status).toBe(200);

    const keys = await runInDurableObject(control(), (_instance: ControlObject, state) =>
      state.storage.sql
        .exec<{ key_id: string }>("SELECT key_id FROM keys WHERE source_id = ? AND key_id != ?", space.sourceId, space.keyId)
        .toArray(),
    );
    expect(keys).toEqual([{ key_id: first.key_id }]);
  });

  it("rotation: 503; a retry with the same key answers the same new secret, the old one refused", async () => {
    const space = await createSpace();
    const rotate = () =>
      call("POST", `/control/v1/keys/${space.keyId}/rotate`, {
        token: space.tenant.token,
        headers: { "idempotency-key": "rotate-once" },
      });
    await failNextPush(space.name);
    await expectUnavailable(await rotate());
    const rotated = KeySchema.parse(await json(await rotate(), 200));
    expect(KeySchema.parse(await json(await rotate(), 200))).toEqual(rotated);
    expect((await whoami(space, rotated.key ?? "")).status).toBe(200);
    expect((await whoami(space, space.key)).status).toBe(401);
  });
});

describe("owed pushes", () => {
  it("a push that lands settles what was owed when its snapshot was taken, not a change made meanwhile", async () => {
    await runInDurableObject(control(), (_instance: ControlObject, state) => {
      const db = drizzle(state.storage);
      const space = { spaceId: crypto.randomUUID() } as SpaceRow;
      owePushes(db, [space]);
      const taken = owedVersion(db, space.spaceId) ?? 0;
      owePushes(db, [space]);
      settlePush(db, space.spaceId, taken);
      const later = owedVersion(db, space.spaceId) ?? 0;
      expect(later).toBeGreaterThan(taken);
      settlePush(db, space.spaceId, later);
      expect(owedVersion(db, space.spaceId)).toBeUndefined();
    });
  });
});
