import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MAX_BLOCK } from "../../src/space/identity/linkage/blocking";
import type { SpaceObject } from "../../src/space/object";
import { moveClock, runAlarms, stub } from "../support/memory";
import { batch, createSpace, json, message, type Space } from "../support/seed";

/** `count` profiles whose only trait is one postal code. */
async function sharing(count: number, postalCode: string): Promise<Space> {
  const space = await createSpace();
  const items = Array.from({ length: count }, (_, i) =>
    message({
      kind: "system_event",
      canonical_type: "customer.updated",
      channel: "crm",
      content: undefined,
      handles: [{ type: "system_id", scope: "crm", value: `c-${i}` }],
      attributes: { postal_code: postalCode },
    }),
  );
  await json(await batch(space, items), 200);
  await moveClock(space, 60_000);
  await runAlarms(space);
  return space;
}

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
});
