import { runInDurableObject } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { noteTraits, readTraits } from "../../src/space/identity/evidence";
import { type Trait, type TraitSet, VALUES_PER_TRAIT } from "../../src/space/identity/linkage/traits";
import type { SpaceObject } from "../../src/space/object";
import { stub } from "../support/memory";
import { runs } from "../support/property-runs";
import { createSpace } from "../support/seed";

/**
 * A profile's traits as the suggestions job reads them (`evidence.ts`), against a model: per
 * trait the value given at the latest memory time first (a tie: the value first given later),
 * then the alternatives, `VALUES_PER_TRAIT` at most; whatever order events arrive in. A note
 * that changes what is read appends a change for the job; a note of values already the latest
 * appends none (a CRM sending the same record again costs no comparison).
 */

const note = fc.array(
  fc.record({
    trait: fc.constantFrom<Trait>("given_name", "postal_code"),
    value: fc.constantFrom("a", "b", "c", "d", "e"),
  }),
  { minLength: 1, maxLength: 2 },
);
const notes = fc.array(fc.record({ traits: note, at: fc.integer({ min: 1, max: 8 }) }), { minLength: 1, maxLength: 14 });

class Model {
  #values = new Map<string, { time: number; order: number }>();
  #given = 0;

  note(traits: readonly { trait: Trait; value: string }[], at: number): void {
    for (const { trait, value } of traits) {
      const key = `${trait}\u0000${value}`;
      const held = this.#values.get(key);
      if (held) held.time = Math.max(held.time, at);
      else this.#values.set(key, { time: at, order: this.#given++ });
    }
  }

  read(): TraitSet {
    const set: TraitSet = {};
    const sorted = [...this.#values].sort(([, x], [, y]) => y.time - x.time || y.order - x.order);
    for (const [key] of sorted) {
      const [trait, value] = key.split("\u0000") as [Trait, string];
      const values = set[trait] ?? [];
      if (values.length < VALUES_PER_TRAIT) values.push(value);
      set[trait] = values;
    }
    return set;
  }
}

const canonical = (set: TraitSet) => JSON.stringify(Object.entries(set).sort(([x], [y]) => x.localeCompare(y)));

describe("a profile's traits", () => {
  it("read latest first whatever the order of arrival; changes noted when what is read changes, not for a resend", async () => {
    const space = await createSpace();
    let profiles = 0;
    await runInDurableObject(stub(space), (_instance: SpaceObject, state) => {
      const sql = state.storage.sql;
      const changesOf = (profileId: string) =>
        sql.exec<{ n: number }>("SELECT count(*) AS n FROM trait_changes WHERE profile_id = ?", profileId).one().n;
      fc.assert(
        fc.property(notes, (written) => {
          const profileId = `traits-${profiles++}`;
          const model = new Model();
          for (const { traits, at } of written) {
            const before = model.read();
            const latestAlready = traits.every(({ trait, value }) => before[trait]?.[0] === value);
            const changes = changesOf(profileId);
            noteTraits(
              sql,
              profileId,
              traits.map(({ trait, value }) => [trait, value]),
              at,
            );
            model.note(traits, at);
            const read = readTraits(sql, [profileId])[0] ?? {};
            expect(read).toEqual(model.read());
            if (canonical(read) !== canonical(before)) expect(changesOf(profileId)).toBeGreaterThan(changes);
            if (latestAlready) expect(changesOf(profileId)).toBe(changes);
          }
        }),
        { numRuns: runs(200) },
      );
    });
  });
});
