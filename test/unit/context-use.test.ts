import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { classify, type Served, type Stamp } from "../../src/space/measurement/context-use";

/** The classification of an agent turn by its `context_stamp`, over random times. */

const time = fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) });
const root = fc.constantFrom("p1", "p2", "p3");
const stamp: fc.Arbitrary<Stamp> = fc.record({ etag: fc.string({ minLength: 1 }), injectedAt: time });
const served: fc.Arbitrary<Served> = fc.record({ root, supersededAt: fc.option(time, { nil: null }) });

describe("context use: classify(stamp, served, root)", () => {
  it("is none without a stamp, whatever the space knows", () => {
    fc.assert(
      fc.property(fc.option(served, { nil: null }), root, (known, of) => {
        expect(classify(null, known, of)).toBe("none");
      }),
    );
  });

  it("is unknown for an etag never answered, or answered for another profile", () => {
    fc.assert(
      fc.property(stamp, served, root, (given, known, of) => {
        expect(classify(given, null, of)).toBe("unknown");
        fc.pre(known.root !== of);
        expect(classify(given, known, of)).toBe("unknown");
      }),
    );
  });

  it("is current while the etag was not superseded at injected_at, late from the supersession on", () => {
    fc.assert(
      fc.property(stamp, served, (given, known) => {
        const use = classify(given, known, known.root);
        const supersededByThen = known.supersededAt !== null && known.supersededAt <= given.injectedAt;
        expect(use).toBe(supersededByThen ? "late" : "current");
      }),
    );
  });

  it("never turns late into current when the context went in later, nor current into late when it went in earlier", () => {
    fc.assert(
      fc.property(stamp, served, fc.nat({ max: 10 * 86_400_000 }), (given, known, shift) => {
        const earlier = classify({ ...given, injectedAt: given.injectedAt - shift }, known, known.root);
        const later = classify({ ...given, injectedAt: given.injectedAt + shift }, known, known.root);
        if (earlier === "late") expect(later).toBe("late");
        if (later === "current") expect(earlier).toBe("current");
      }),
    );
  });

  it("is always current for an etag never superseded", () => {
    fc.assert(
      fc.property(stamp, root, (given, of) => {
        expect(classify(given, { root: of, supersededAt: null }, of)).toBe("current");
      }),
    );
  });
});
