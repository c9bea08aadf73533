import { describe, expect, it } from "vitest";
import { COMPARISONS, encodePattern, type Pattern } from "../../src/space/identity/linkage/comparisons";
import { seeded } from "../../src/space/identity/linkage/random-pairs";
import {
  DEFAULT_LAMBDA,
  DEFAULT_M,
  DEFAULT_U,
  emptyUSample,
  estimateModel,
  levelWeights,
  matchWeight,
  probabilityOf,
  uFromSample,
} from "../../src/space/identity/linkage/weights";

/** Draws a level from a distribution, or null (missing) with probability `missing`. */
function draw(rand: () => number, levels: readonly number[], missing: number): number | null {
  if (rand() < missing) return null;
  let r = rand();
  for (let l = 0; l < levels.length; l++) {
    r -= levels[l] as number;
    if (r <= 0) return l;
  }
  return levels.length - 1;
}

describe("Fellegi-Sunter weights", () => {
  it("EM finds m and the prior of a constructed space whose m and u are known", () => {
    const rand = seeded(7);
    const trueM = COMPARISONS.map((comparison) =>
      comparison.levels.map((_, l) => (l === 0 ? 0.6 : 0.4 / (comparison.levels.length - 1))),
    );
    const u = DEFAULT_U.map((levels) => [...levels]);
    const allPairs = 2_000_000;
    const matches = 2_000;
    const counts = new Map<string, [Pattern, number]>();
    const add = (pattern: Pattern) => {
      const key = encodePattern(pattern);
      const entry = counts.get(key) ?? [pattern, 0];
      entry[1]++;
      counts.set(key, entry);
    };
    for (let i = 0; i < matches; i++) add(trueM.map((levels) => draw(rand, levels, 0.1)));
    // Every other pair is two people; only the patterns matter, so the space is built whole.
    for (let i = 0; i < allPairs - matches; i++) add(u.map((levels) => draw(rand, levels, 0.1)));
    const model = estimateModel([...counts.values()], u, allPairs);
    expect(model.rounds).toBeLessThan(40);
    expect(model.lambda).toBeGreaterThan(0.0009);
    expect(model.lambda).toBeLessThan(0.0011);
    model.m.forEach((levels, k) => {
      levels.forEach((m, l) => {
        expect(Math.abs(m - (trueM[k]?.[l] ?? 0))).toBeLessThan(0.04);
      });
    });
  }, 60_000);

  it("a space with no pairs keeps the documented defaults", () => {
    const model = estimateModel([], uFromSample(emptyUSample()), 1);
    expect(model.m.flat()).toEqual(DEFAULT_M.flat().map((m) => expect.closeTo(m, 6)));
    expect(model.u.flat()).toEqual(DEFAULT_U.flat().map((u) => expect.closeTo(u, 6)));
    expect(model.lambda).toBeCloseTo(DEFAULT_LAMBDA, 8);
  });

  it("the match weight is the prior plus each level's log2(m/u); a missing value adds nothing", () => {
    const model = estimateModel([], uFromSample(emptyUSample()), 1);
    const weights = levelWeights(model);
    const none: Pattern = COMPARISONS.map(() => null);
    expect(matchWeight(none, weights, model.lambda)).toBeCloseTo(Math.log2(DEFAULT_LAMBDA / (1 - DEFAULT_LAMBDA)));
    const sameBirthDate = [...none];
    sameBirthDate[2] = 0;
    expect(matchWeight(sameBirthDate, weights, model.lambda) - matchWeight(none, weights, model.lambda)).toBeCloseTo(
      Math.log2((DEFAULT_M[2]?.[0] ?? 0) / (DEFAULT_U[2]?.[0] ?? 1)),
    );
    expect(probabilityOf(0)).toBe(0.5);
    // One meeting of their handles alone makes a pair likely.
    expect(probabilityOf(matchWeight(none, weights, model.lambda, 1))).toBeGreaterThan(0.99);
  });
});
