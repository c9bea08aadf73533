/**
 * How much a sentence says of its session (docs/api/memory.md "Episodes"): content words
 * weighted by how rare they are in the space (idf), a sentence's similarity to the session's
 * centroid of them, and maximal marginal relevance so that a second sentence saying the same
 * thing is not chosen.
 */
import type { Vocabulary } from "./summarizer";

/** A smoothed idf, always positive: rare stems weigh up to ~ln(documents), one in every row ln 2. */
export function idfOf(vocabulary: Vocabulary): (stem: string) => number {
  const documents = vocabulary.documents;
  return (stem) => Math.log(1 + (documents + 1) / (vocabulary.documentFrequency(stem) + 1));
}

type Vector = Map<string, number>;

/** A sentence's vector: each distinct stem at its idf. */
export function vectorOf(stems: readonly string[], idf: (stem: string) => number): Vector {
  const vector: Vector = new Map();
  for (const stem of stems) vector.set(stem, idf(stem));
  return vector;
}

export function cosine(a: Vector, b: Vector): number {
  let dot = 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const [stem, weight] of small) dot += weight * (large.get(stem) ?? 0);
  if (dot === 0) return 0;
  return dot / (norm(a) * norm(b));
}

function norm(vector: Vector): number {
  let sum = 0;
  for (const weight of vector.values()) sum += weight * weight;
  return Math.sqrt(sum);
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
  const chosen: number[] = [];
  const left = new Set(candidates.keys());
  let used = 0;
  while (left.size > 0) {
    let best = -1;
    let bestScore = Number.NEGATIVE_INFINITY;
    for (const i of left) {
      const candidate = candidates[i] as Candidate;
      const separator = chosen.length > 0 ? 1 : 0;
      let redundancy = 0;
      for (const j of chosen) redundancy = Math.max(redundancy, cosine(candidate.vector, (candidates[j] as Candidate).vector));
      if (used + separator + candidate.length > budget || redundancy >= SAME) {
        left.delete(i);
        continue;
      }
      const score = RELEVANCE * (relevance[i] ?? 0) - (1 - RELEVANCE) * redundancy;
      if (score > bestScore) {
        best = i;
        bestScore = score;
      }
    }
    if (best < 0) break;
    left.delete(best);
    used += (chosen.length > 0 ? 1 : 0) + (candidates[best] as Candidate).length;
    chosen.push(best);
  }
  return chosen;
}

/** The centroid of some sentences' stems: each stem at its idf times the number of sentences holding it. */
export function centroidOf(sentences: readonly (readonly string[])[], idf: (stem: string) => number): Vector {
  const centroid: Vector = new Map();
  for (const stems of sentences) for (const stem of stems) centroid.set(stem, (centroid.get(stem) ?? 0) + idf(stem));
  return centroid;
}
