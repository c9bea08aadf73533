/**
 * How much a sentence says of its session (docs/api/memory.md "Episodes"): content words
 * weighted by how rare they are in the space (idf) and by how many of the session's sentences
 * say them, and the sentences that cover most of that weight for their length.
 */
import type { Vocabulary } from "./summarizer";

/**
 * A smoothed idf, always positive: rare stems weigh up to ~ln(documents), one in every row ln 2.
 * Each stem's weight is worked out once per function made.
 */
export function idfOf(vocabulary: Vocabulary): (stem: string) => number {
  const documents = vocabulary.documents;
  const known = new Map<string, number>();
  return (stem) => {
    let weight = known.get(stem);
    if (weight === undefined) {
      weight = Math.log(1 + (documents + 1) / (vocabulary.documentFrequency(stem) + 1));
      known.set(stem, weight);
    }
    return weight;
  };
}

/** Stems and their weights, with the vector's length. */
export interface Vector {
  weights: ReadonlyMap<string, number>;
  norm: number;
}

const vector = (weights: Map<string, number>): Vector => {
  let sum = 0;
  for (const weight of weights.values()) sum += weight * weight;
  return { weights, norm: Math.sqrt(sum) };
};

/** A sentence's vector: each distinct stem at its idf. */
export function vectorOf(stems: readonly string[], idf: (stem: string) => number): Vector {
  const weights = new Map<string, number>();
  for (const stem of stems) weights.set(stem, idf(stem));
  return vector(weights);
}

export function cosine(a: Vector, b: Vector): number {
  let dot = 0;
  const [small, large] = a.weights.size <= b.weights.size ? [a.weights, b.weights] : [b.weights, a.weights];
  for (const [stem, weight] of small) dot += weight * (large.get(stem) ?? 0);
  return dot === 0 ? 0 : dot / (a.norm * b.norm);
}

/** What selection needs of a candidate: its vector, and its length in code points once written. */
export interface Candidate {
  vector: Vector;
  length: number;
  /** Shares no word with the rest of its session: chosen only once no other candidate adds anything. */
  aside?: boolean;
}

/**
 * How a candidate's length counts against what it adds: its gain over length^0.75. Over length
 * (0.5 or 1) took a little less of LoCoMo's reference summaries (docs/api/memory.md "Episodes").
 */
const LENGTH_EXPONENT = 0.75;

/**
 * The candidates to write within `budget` code points (joined by a space), best first: greedy
 * budgeted coverage of the `centroid`'s stems (the session's, each weighted by its idf and by how
 * many sentences hold it). A candidate gains the weight of its stems that no candidate chosen
 * holds yet, over its length to the power `LENGTH_EXPONENT`; one that adds nothing is never
 * chosen, so a second sentence saying the same is not, and an aside only when no other adds
 * anything or fits. Deterministic: ties go to the earlier candidate.
 */
export function select(candidates: readonly Candidate[], centroid: Vector, budget: number): number[] {
  const covered = new Set<string>();
  const chosen: number[] = [];
  const left = new Set(candidates.keys());
  let used = 0;
  for (;;) {
    let best = -1;
    let bestScore = 0;
    let aside = -1;
    let asideScore = 0;
    const separator = chosen.length > 0 ? 1 : 0;
    for (const i of left) {
      const candidate = candidates[i] as Candidate;
      if (used + separator + candidate.length > budget) {
        left.delete(i);
        continue;
      }
      let gain = 0;
      for (const stem of candidate.vector.weights.keys()) if (!covered.has(stem)) gain += centroid.weights.get(stem) ?? 0;
      const score = gain / Math.max(1, candidate.length) ** LENGTH_EXPONENT;
      if (candidate.aside) {
        if (score > asideScore) [aside, asideScore] = [i, score];
      } else if (score > bestScore) [best, bestScore] = [i, score];
    }
    const next = best >= 0 ? best : aside;
    if (next < 0) break;
    left.delete(next);
    used += separator + (candidates[next] as Candidate).length;
    chosen.push(next);
    for (const stem of (candidates[next] as Candidate).vector.weights.keys()) covered.add(stem);
  }
  return chosen;
}

/** The centroid of some sentences' stems: each stem at its idf times the number of sentences holding it. */
export function centroidOf(sentences: readonly (readonly string[])[], idf: (stem: string) => number): Vector {
  const weights = new Map<string, number>();
  for (const stems of sentences) for (const stem of stems) weights.set(stem, (weights.get(stem) ?? 0) + idf(stem));
  return vector(weights);
}
