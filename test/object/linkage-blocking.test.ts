import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MAX_BLOCK } from "../../src/space/identity/linkage/blocking";
import type { SpaceObject } from "../../src/space/object";
import { moveClock, runAlarms, stub } from "../support/memory";
import { batch, createSpace, json, message, type Space } from "../support/seed";

/** A profile whose only trait is one postal code. */
const holder = (i: number, postalCode: string) =>
  message({
    kind: "system_event",
    canonical_type: "customer.updated",
    channel: "crm",
    content: undefined,
    handles: [{ type: "system_id", scope: "crm", value: `c-${i}` }],
    attributes: { postal_code: postalCode },
  });

async function runJob(space: Space): Promise<void> {
  await moveClock(space, 60_000);
  await runAlarms(space);
}

/** `count` profiles whose only trait is one postal code. */
async function sharing(count: number, postalCode: string): Promise<Space> {
  const space = await createSpace();
  await json(
    await batch(
      space,
      Array.from({ length: count }, (_, i) => holder(i, postalCode)),
    ),
    200,
  );
  await runJob(space);
  return space;
}

/** The rows of `linkage_keys`: members (`lid` > 0) and marks of keys past the cap (`lid` 0). */
const keyRows = (space: Space) =>
  runInDurableObject(stub(space), (_instance: SpaceObject, state) =>
    state.storage.sql
      .exec<{ members: number; marks: number }>(
        "SELECT count(*) FILTER (WHERE lid > 0) AS members, count(*) FILTER (WHERE lid = 0) AS marks FROM linkage_keys",
      )
      .one(),
  );

const keptPairs = (space: Space) =>
  runInDurableObject(
    stub(space),
    (_instance: SpaceObject, state) => state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM linkage_pairs").one().n,
  );

describe("blocking caps", () => {
  it("compares every pair of a key held by at most MAX_BLOCK profiles", async () => {
    const space = await sharing(MAX_BLOCK, "2000");
    expect(await keptPairs(space)).toBe((MAX_BLOCK * (MAX_BLOCK - 1)) / 2);
  });

  it("skips a key held by more: its profiles are compared only through their other keys", async () => {
    expect(await keptPairs(await sharing(MAX_BLOCK + 1, "2000"))).toBe(0);
  });

  it("keeps a key past the cap as one mark without members, and a profile joining it later is not compared through it", async () => {
    const space = await sharing(MAX_BLOCK + 1, "2000");
    expect(await keyRows(space)).toEqual({ members: 0, marks: 1 });
    await json(await batch(space, [holder(MAX_BLOCK + 1, "2000")]), 200);
    await runJob(space);
    expect(await keyRows(space)).toEqual({ members: 0, marks: 1 });
    expect(await keptPairs(space)).toBe(0);
  });

  it("a key passing the cap by a later profile keeps the pairs found under it until one of theirs changes", async () => {
    const space = await sharing(MAX_BLOCK, "2000");
    const all = (MAX_BLOCK * (MAX_BLOCK - 1)) / 2;
    expect(await keptPairs(space)).toBe(all);
    await json(await batch(space, [holder(MAX_BLOCK, "2000")]), 200);
    await runJob(space);
    // The key is a mark now, the newcomer met no one through it, and the pairs found stay (docs/api/identity.md).
    expect(await keyRows(space)).toEqual({ members: 0, marks: 1 });
    expect(await keptPairs(space)).toBe(all);
    // A profile given a new trait is compared again: through the marked key it meets no one any more.
    await json(
      await batch(space, [
        message({
          kind: "system_event",
          canonical_type: "customer.updated",
          channel: "crm",
          content: undefined,
          handles: [{ type: "system_id", scope: "crm", value: "c-0" }],
          attributes: { postal_code: "2000", given_name: "Zebulon" },
        }),
      ]),
      200,
    );
    await runJob(space);
    expect(await keptPairs(space)).toBe(all - (MAX_BLOCK - 1));
  });

  it("compares a profile joining a key under the cap with each member, incrementally", async () => {
    const space = await sharing(3, "2000");
    expect(await keptPairs(space)).toBe(3);
    await json(await batch(space, [holder(3, "2000")]), 200);
    await runJob(space);
    expect(await keyRows(space)).toEqual({ members: 4, marks: 0 });
    expect(await keptPairs(space)).toBe(6);
  });
});
