/**
 * How much a sentence says of its session (docs/api/memory.md "Episodes"): content words
 * weighted by how rare they are in the space (idf), a sentence's similarity to the session's
 * centroid of them, and maximal marginal relevance so that a second sentence saying the same
 * thing is not chosen.
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
}

/** Weight of relevance against novelty (MMR's λ). */
const RELEVANCE = 0.7;
/** A candidate this similar to one chosen says the same thing: never chosen. */
const SAME = 0.8;

/**
 * The candidates to write within `budget` code points (joined by a space), best first: greedy by
 * maximal marginal relevance, relevance being the similarity to `centroid` (the session's stems,
 * each weighted by its idf and by how many sentences hold it: a TextRank-like centrality without
 * the graph). Deterministic: ties go to the earlier candidate.
 */
export function select(candidates: readonly Candidate[], centroid: Vector, budget: number): number[] {
  const relevance = candidates.map((candidate) => cosine(candidate.vector, centroid));
  // Each candidate's similarity to the closest one chosen so far.
  const redundancy = candidates.map(() => 0);
  const chosen: number[] = [];
  const left = new Set(candidates.keys());
  let used = 0;
  while (left.size > 0) {
    let best = -1;
    let bestScore = Number.NEGATIVE_INFINITY;
    const separator = chosen.length > 0 ? 1 : 0;
    for (const i of left) {
      const candidate = candidates[i] as Candidate;
      const same = redundancy[i] ?? 0;
      if (used + separator + candidate.length > budget || same >= SAME) {
        left.delete(i);
        continue;
      }
      const score = RELEVANCE * (relevance[i] ?? 0) - (1 - RELEVANCE) * same;
      if (score > bestScore) {
        best = i;
        bestScore = score;
      }
    }
    if (best < 0) break;
    left.delete(best);
    used += separator + (candidates[best] as Candidate).length;
    chosen.push(best);
    const picked = (candidates[best] as Candidate).vector;
    for (const i of left) redundancy[i] = Math.max(redundancy[i] ?? 0, cosine((candidates[i] as Candidate).vector, picked));
  }
  return chosen;
}

/** The centroid of some sentences' stems: each stem at its idf times the number of sentences holding it. */
export function centroidOf(sentences: readonly (readonly string[])[], idf: (stem: string) => number): Vector {
  const weights = new Map<string, number>();
  for (const stems of sentences) for (const stem of stems) weights.set(stem, (weights.get(stem) ?? 0) + idf(stem));
  return vector(weights);
}
