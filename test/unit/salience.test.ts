import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { centroidOf, idfOf, select, vectorOf } from "../../src/space/memory/salience";
import { EMPTY_VOCABULARY } from "../../src/space/memory/summarizer";

const flat = () => 1;
const candidate = (stems: string[], length = 40) => ({ vector: vectorOf(stems, flat), length });

describe("salience: which sentences a summary takes", () => {
  it("takes the most central first and fits the budget", () => {
    const sentences = [
      ["sofa", "late"],
      ["sofa", "deliveri", "late"],
      ["weather", "nice"],
    ];
    const centroid = centroidOf([...sentences, ["sofa", "deliveri"]], flat);
    expect(
      select(
        sentences.map((stems) => candidate(stems)),
        centroid,
        40,
      ),
    ).toEqual([1]);
    expect(
      select(
        sentences.map((stems) => candidate(stems)),
        centroid,
        81,
      ),
    ).toHaveLength(2);
  });

  it("never takes a second sentence that says the same", () => {
    const sentences = [
      ["sofa", "late"],
      ["sofa", "late"],
      ["kettl", "leak", "sofa"],
    ];
    const chosen = select(
      sentences.map((stems) => candidate(stems, 10)),
      centroidOf(sentences, flat),
      1000,
    );
    expect([...chosen].sort()).toEqual([0, 2]);
  });

  it("takes next the sentence that adds most not yet said for its length, and none that adds nothing", () => {
    // "sofa late" is the matter; after the sentence saying it and the order, one near it adds
    // only "voucher", one about the refund adds two words not said yet.
    const sentences = [
      ["sofa", "late", "order"],
      ["sofa", "late", "voucher"],
      ["refund", "bank"],
      ["sofa", "late"],
    ];
    const centroid = centroidOf([...sentences, ["sofa", "late"]], flat);
    const candidates = sentences.map((stems) => candidate(stems, 30));
    expect(select(candidates, centroid, 61)).toEqual([0, 2]);
    expect(select(candidates, centroid, 1000)).toEqual([0, 2, 1]);
  });

  it("takes an aside only once nothing else adds anything or fits", () => {
    const sentences = [
      ["sofa", "late", "deliveri"],
      ["sofa", "deliveri", "tuesday"],
      ["weather", "leed", "love", "today"],
    ];
    const centroid = centroidOf([...sentences, ["sofa", "late", "deliveri", "tuesday"]], flat);
    const candidates = sentences.map((stems, i) => ({ ...candidate(stems, 30), aside: i === 2 }));
    expect(select(candidates, centroid, 61)).toEqual([0, 1]);
    expect(select(candidates, centroid, 1000)).toEqual([0, 1, 2]);
    // Not an aside, it says more for its length than the second sentence.
    expect(
      select(
        sentences.map((stems) => candidate(stems, 30)),
        centroid,
        61,
      ),
    ).toEqual([0, 2]);
  });

  it("weighs a rare word more than a common one, and every word the same without counts", () => {
    const idf = idfOf({ documents: 100, documentFrequency: (stem) => (stem === "order" ? 90 : 1) });
    expect(idf("order")).toBeLessThan(idf("kettl"));
    expect(idf("order")).toBeGreaterThan(0);
    const none = idfOf(EMPTY_VOCABULARY);
    expect(none("order")).toBe(none("kettl"));
  });

  it("is deterministic, in budget, and takes each candidate once", () => {
    const stems = fc.array(fc.constantFrom("a", "b", "c", "d", "e", "f"), { maxLength: 5 });
    fc.assert(
      fc.property(fc.array(fc.tuple(stems, fc.integer({ min: 1, max: 120 })), { maxLength: 20 }), fc.nat(400), (rows, budget) => {
        const candidates = rows.map(([s, length]) => candidate(s, length));
        const centroid = centroidOf(
          rows.map(([s]) => s),
          flat,
        );
        const chosen = select(candidates, centroid, budget);
        expect(select(candidates, centroid, budget)).toEqual(chosen);
        expect(new Set(chosen).size).toBe(chosen.length);
        const used = chosen.reduce((sum, i) => sum + (candidates[i]?.length ?? 0), 0) + Math.max(0, chosen.length - 1);
        expect(used).toBeLessThanOrEqual(budget);
      }),
    );
  });
});
