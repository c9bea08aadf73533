import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { PersonActor } from "../../src/auth/person-token";
import { type TokenCut, TokenCuts } from "../../src/auth/token-cuts";
import { runs } from "../support/property-runs";

const people = ["p1", "p2", "p3"];
const tokens = ["t1", "t2", "t3", "t4"];

const cutArb: fc.Arbitrary<TokenCut> = fc.record({
  personId: fc.constantFrom(...people),
  tokenId: fc.option(fc.constantFrom(...tokens), { nil: null }),
  generation: fc.integer({ min: 0, max: 5 }),
  until: fc.integer({ min: 0, max: 10 }),
});

const actorArb = fc.record({
  personId: fc.constantFrom(...people),
  id: fc.constantFrom(...tokens),
  generation: fc.integer({ min: 0, max: 5 }),
});

function actor({ personId, id, generation }: { personId: string; id: string; generation: number }): PersonActor {
  return {
    kind: "person",
    personId,
    tenantId: "t",
    roles: ["review"],
    vendorSources: [],
    token: { id, generation, expiresAt: 0 },
  };
}

describe("TokenCuts: which tokens a space refuses", () => {
  it("reaches a token exactly when a cut names its id, or cuts its person above its generation", () => {
    fc.assert(
      fc.property(fc.array(cutArb, { maxLength: 8 }), actorArb, (cuts, who) => {
        const expected = cuts.some(
          (cut) =>
            (cut.tokenId !== null && cut.tokenId === who.id) ||
            (cut.tokenId === null && cut.personId === who.personId && who.generation < cut.generation),
        );
        expect(new TokenCuts(cuts).reaches(actor(who))).toBe(expected);
      }),
      { numRuns: runs(200) },
    );
  });
});
