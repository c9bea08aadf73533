import { COMPARISONS, type Pattern } from "./comparisons";

/**
 * Fellegi-Sunter weights (as Splink and the recordlinkage toolkit estimate them): per level of
 * each comparison, m = P(level | one person) and u = P(level | two people). A pair's match weight
 * is log2 of the prior odds plus Σ log2(m/u) over its comparisons; its score the probability.
 */
export interface Model {
  m: number[][];
  u: number[][];
  /** The probability that two profiles of the space drawn at random are one person. */
  lambda: number;
}

/**
 * Defaults, for spaces too small to estimate from (and what estimates start from and lean on:
 * a default counts as `M_PRIOR_PAIRS` matches and `U_PRIOR_PAIRS` random pairs). m: how often a
 * person's records agree at each level, for CRM data with typing errors. u: how often two
 * different people's do, for a country's worth of names, dates and postal codes.
 */
export const DEFAULT_M: readonly (readonly number[])[] = [
  [0.8, 0.08, 0.06, 0.06], // given_name: exact, close, similar, different
  [0.8, 0.03, 0.07, 0.04, 0.06], // family_name: exact, swapped (given and family written the other way round), close, similar, different
  [0.8, 0.03, 0.08, 0.02, 0.07], // birth_date: exact, transposed, one_digit, same_year, different
  [0.85, 0.05, 0.1], // postal_code: exact, one_digit, different
  [0.7, 0.1, 0.05, 0.15], // street: exact, close, similar, different
  [0.5, 0.1, 0.4], // locality (when postal codes differ): exact, close, different
  [0.6, 0.1, 0.3], // email_local: exact, close, different
  [0.6, 0.4], // phone_national: exact, different
];

export const DEFAULT_U: readonly (readonly number[])[] = [
  [0.01, 0.005, 0.03, 0.955],
  [0.002, 0.00002, 0.003, 0.02, 0.97498],
  [0.00005, 0.00005, 0.0015, 0.015, 0.9834],
  [0.001, 0.008, 0.991],
  [0.00001, 0.0001, 0.005, 0.99489],
  [0.005, 0.002, 0.993],
  [0.00001, 0.0001, 0.99989],
  [0.000001, 0.999999],
];

/**
 * Below these, a space keeps the defaults: u needs profiles enough that random pairs are nearly
 * all two people (in a small space the duplicates themselves would make every agreement look
 * common), m needs candidate pairs enough to learn from.
 */
export const U_MIN_PROFILES = 1_000;
export const M_MIN_PAIRS = 200;

/** The prior a small space starts from: one duplicate pair in 10,000 random pairs. */
export const DEFAULT_LAMBDA = 1e-4;
/** How many matches, random pairs and pairs of profiles the defaults count as when estimates lean on them. */
export const M_PRIOR_PAIRS = 20;
export const U_PRIOR_PAIRS = 200;
export const U_MIN_SEEN = 10;
export const LAMBDA_PRIOR_PAIRS = 100_000;
/** No level is taken as rarer than this among random pairs: a sample cannot tell, and a weight must stay finite. */
export const MIN_U = 1e-7;

/**
 * Handles of two profiles met in one event: evidence beside the traits, with fixed weights (one
 * meeting, several): a pair that met is rarely two people, and no sample could estimate it.
 */
export const MEETING_WEIGHTS = [24, 28] as const;

export const defaultModel = (): Model => ({
  m: DEFAULT_M.map((levels) => [...levels]),
  u: DEFAULT_U.map((levels) => [...levels]),
  lambda: DEFAULT_LAMBDA,
});

/** Per comparison and level, log2(m/u): what the level adds to a pair's match weight. */
export function levelWeights(model: Model): number[][] {
  return model.m.map((levels, k) => levels.map((m, l) => Math.log2(m / (model.u[k]?.[l] ?? 1))));
}

export const priorWeight = (lambda: number): number => Math.log2(lambda / (1 - lambda));

/** The match weight of a pattern and its meetings: the prior, plus each level's weight (null adds nothing). */
export function matchWeight(pattern: Pattern, weights: number[][], lambda: number, meetings = 0): number {
  let weight = priorWeight(lambda);
  pattern.forEach((level, k) => {
    if (level !== null) weight += weights[k]?.[level] ?? 0;
  });
  if (meetings > 0) weight += MEETING_WEIGHTS[meetings > 1 ? 1 : 0];
  return weight;
}

export const probabilityOf = (weight: number): number => 1 / (1 + 2 ** -weight);

/**
 * u from random pairs of the space: per comparison, how many sampled pairs had both values
 * (`compared`) and how many fell at each level (`levels`); and for the exact level, which two
 * random people rarely reach (a birth date: 1 in 20,000), from how often values repeat in the
 * sample (`equal` of `implied` pairs), which sees far more pairs than could be compared.
 */
export interface USample {
  levels: number[][];
  compared: number[];
  equal: number[];
  implied: number[];
}

export const emptyUSample = (): USample => ({
  levels: COMPARISONS.map((comparison) => comparison.levels.map(() => 0)),
  compared: COMPARISONS.map(() => 0),
  equal: COMPARISONS.map(() => 0),
  implied: COMPARISONS.map(() => 0),
});

export function addUSamples(a: USample, b: USample): USample {
  return {
    levels: a.levels.map((levels, k) => levels.map((count, l) => count + (b.levels[k]?.[l] ?? 0))),
    compared: a.compared.map((count, k) => count + (b.compared[k] ?? 0)),
    equal: a.equal.map((count, k) => count + (b.equal[k] ?? 0)),
    implied: a.implied.map((count, k) => count + (b.implied[k] ?? 0)),
  };
}

/**
 * u per level: the exact level from repeats, leaning on the default by `U_PRIOR_PAIRS` × 10
 * pairs; the others share what is left, each by how often compared pairs that were not exact
 * fell at it, except that a level seen fewer than `U_MIN_SEEN` times keeps its default share (a
 * sample too small to see a level says nothing of how rare it is). The shares are scaled to sum
 * to one, so that each comparison's u is a distribution.
 */
export function uFromSample(sample: USample): number[][] {
  return DEFAULT_U.map((defaults, k) => {
    const d0 = defaults[0] as number;
    const exact = ((sample.equal[k] ?? 0) + U_PRIOR_PAIRS * 10 * d0) / ((sample.implied[k] ?? 0) + U_PRIOR_PAIRS * 10);
    const counts = sample.levels[k] ?? [];
    const notExact = (sample.compared[k] ?? 0) - (counts[0] ?? 0);
    const shares = defaults.map((d, l) => {
      if (l === 0) return 0;
      const seen = counts[l] ?? 0;
      return seen < U_MIN_SEEN ? d / (1 - d0) : (seen + U_PRIOR_PAIRS * (d / (1 - d0))) / (notExact + U_PRIOR_PAIRS);
    });
    const total = shares.reduce((sum, share) => sum + share, 0);
    return shares.map((share, l) => Math.max(l === 0 ? exact : ((1 - exact) * share) / total, MIN_U));
  });
}

/** A pattern and how many candidate pairs have it. */
export type PatternCounts = ReadonlyMap<string, number> | readonly [Pattern, number][];

/**
 * m and the prior by expectation-maximisation over the candidate pairs, u held (as Splink does):
 * each round weighs every pattern by the probability that its pairs are one person, then takes m
 * as the weighted share of each level and the prior as the expected matches over all pairs of the
 * space (`allPairs`: pairs no key brought together count as two people). Leans on the defaults
 * by `M_PRIOR_PAIRS` matches and `LAMBDA_PRIOR_PAIRS` pairs, so a small space keeps them.
 */
export function estimateModel(
  patterns: readonly [Pattern, number][],
  u: number[][],
  allPairs: number,
  rounds = 40,
): Model & { rounds: number } {
  let model: Model = { ...defaultModel(), u };
  const pairs = patterns.reduce((sum, [, count]) => sum + count, 0);
  if (pairs < M_MIN_PAIRS) return { ...model, rounds: 0 };
  for (let round = 1; round <= rounds; round++) {
    const weights = levelWeights(model);
    const matched = DEFAULT_M.map((levels) => levels.map(() => 0));
    let matches = 0;
    for (const [pattern, count] of patterns) {
      const share = count * probabilityOf(matchWeight(pattern, weights, model.lambda));
      matches += share;
      pattern.forEach((level, k) => {
        const row = matched[k];
        if (level !== null && row) row[level] = (row[level] ?? 0) + share;
      });
    }
    const m = DEFAULT_M.map((defaults, k) => {
      const row = matched[k] ?? [];
      const total = row.reduce((sum, share) => sum + share, 0);
      return defaults.map((d, l) => Math.max(((row[l] ?? 0) + M_PRIOR_PAIRS * d) / (total + M_PRIOR_PAIRS), MIN_U));
    });
    const lambda = Math.min(0.5, (matches + LAMBDA_PRIOR_PAIRS * DEFAULT_LAMBDA) / (allPairs + LAMBDA_PRIOR_PAIRS));
    const moved = Math.max(
      Math.abs(Math.log(lambda / model.lambda)),
      ...m.flatMap((levels, k) => levels.map((p, l) => Math.abs(p - (model.m[k]?.[l] ?? 0)))),
    );
    model = { m, u, lambda };
    if (moved < 1e-6) return { ...model, rounds: round };
  }
  return { ...model, rounds };
}
