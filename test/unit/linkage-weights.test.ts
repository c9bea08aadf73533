import { describe, expect, it } from "vitest";
import { COMPARISONS, compareTraits, encodePattern, type Pattern } from "../../src/space/identity/linkage/comparisons";
import { sampleU, seeded } from "../../src/space/identity/linkage/random-pairs";
import type { TraitSet } from "../../src/space/identity/linkage/traits";
import {
  DEFAULT_LAMBDA,
  DEFAULT_M,
  DEFAULT_U,
  emptyUSample,
  estimateModel,
  levelWeights,
  matchWeight,
  probabilityOf,
  U_MIN_SEEN,
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

describe("u from random pairs of the space", () => {
  const GIVEN = ["anna", "john", "maria", "peter", "olga", "wei", "fatima", "lucas", "chloe", "omar", "ines", "yusuf"];
  const FAMILY = ["smith", "nguyen", "garcia", "kowalski", "okafor", "tanaka", "silva", "haddad", "muller", "jones"];
  /** Profiles of two people each, with names, birth dates and postal codes drawn from pools (no street: never compared). */
  function population(size: number, rand: () => number): TraitSet[] {
    const pick = <T>(pool: readonly T[]) => pool[Math.floor(rand() * pool.length)] as T;
    const digits = (min: number, max: number) => String(min + Math.floor(rand() * (max - min + 1)));
    return Array.from({ length: size }, () => ({
      given_name: [pick(GIVEN)],
      family_name: [pick(FAMILY)],
      birth_date: [`19${digits(50, 59)}0${digits(1, 9)}1${digits(0, 9)}`],
      postal_code: [digits(2000, 2099)],
    }));
  }

  /** Per comparison and level, the share of all pairs of the population at that level. */
  function trueU(profiles: readonly TraitSet[]): number[][] {
    const counts = COMPARISONS.map((comparison) => comparison.levels.map(() => 0));
    let pairs = 0;
    for (let i = 0; i < profiles.length; i++) {
      for (let j = i + 1; j < profiles.length; j++) {
        pairs++;
        compareTraits(profiles[i] as TraitSet, profiles[j] as TraitSet).forEach((level, k) => {
          const row = counts[k] as number[];
          if (level !== null) row[level] = (row[level] ?? 0) + 1;
        });
      }
    }
    return counts.map((levels) => levels.map((count) => count / pairs));
  }

  it("estimates each level's share among two people's pairs; the exact level from every pair of the sample", () => {
    const profiles = population(600, seeded(11));
    const truth = trueU(profiles);
    const sample = sampleU(profiles, 20_000, seeded(12));
    const u = uFromSample(sample);
    for (const k of [0, 1, 2, 3]) {
      // Repeats are counted over every pair of the 600 profiles (179,700), not the 20,000 drawn.
      expect(sample.implied[k]).toBe((600 * 599) / 2);
      expect(sample.compared[k]).toBe(20_000);
      (truth[k] as number[]).forEach((share, l) => {
        const seen = (sample.levels[k] as number[])[l] as number;
        if (l > 0 && seen < U_MIN_SEEN) return;
        const estimate = (u[k] as number[])[l] as number;
        expect(Math.abs(estimate - share), `${COMPARISONS[k]?.name} level ${l}`).toBeLessThan(0.15 * share + 0.002);
      });
      const sum = (u[k] as number[]).reduce((total, p) => total + p, 0);
      expect(sum).toBeCloseTo(1, 9);
    }
    // Birth dates repeat in about 1 pair of 900 here (10 years, 9 months, 10 days), far above the default.
    expect(u[2]?.[0]).toBeGreaterThan(0.0005);
    expect(u[2]?.[0]).toBeGreaterThan((DEFAULT_U[2]?.[0] ?? 1) * 5);
  });

  it("keeps the defaults for what the sample cannot see: a comparison never made, a level too rare", () => {
    const profiles = population(300, seeded(21));
    const sample = sampleU(profiles, 5_000, seeded(22));
    const u = uFromSample(sample);
    // No profile has a street, an e-mail or a phone: those rows are the defaults.
    for (const k of [4, 6, 7]) expect(u[k]).toEqual((DEFAULT_U[k] as number[]).map((p) => expect.closeTo(p, 9)));
    // Family names are never written the other way round here: `swapped`, never seen, keeps its
    // default share of the pairs that are not exact (scaled with the others to sum to one).
    expect(sample.levels[1]?.[1]).toBe(0);
    const d = DEFAULT_U[1] as number[];
    const share = (u[1]?.[1] ?? 0) / (1 - (u[1]?.[0] ?? 0));
    expect(share / ((d[1] as number) / (1 - (d[0] as number)))).toBeCloseTo(1, 1);
  });

  it("draws the same sample from the same seed, and none from fewer than two profiles", () => {
    const profiles = population(100, seeded(31));
    expect(sampleU(profiles, 300, seeded(5))).toEqual(sampleU(profiles, 300, seeded(5)));
    expect(sampleU(profiles, 300, seeded(5))).not.toEqual(sampleU(profiles, 300, seeded(6)));
    expect(sampleU(profiles.slice(0, 1), 300, seeded(5))).toEqual(emptyUSample());
  });
});
