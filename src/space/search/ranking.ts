import { type Token, tokensOf } from "./tokens";

/** Textbook BM25 (Robertson, Lucene's non-negative idf): the ranking of plain-text searches. */
export const K1 = 1.2;
export const B = 0.75;

export interface Corpus {
  /** Rows in the index. */
  rows: number;
  /** Average tokens of a row's text. */
  averageLength: number;
}

export const idf = (corpus: Corpus, documents: number) =>
  Math.log(1 + (Math.max(corpus.rows, documents) - documents + 0.5) / (documents + 0.5));

/** The BM25 score of a text for query terms with their idf: a term's weight saturates with its count. */
export function bm25(tokens: readonly Token[], weights: ReadonlyMap<string, number>, corpus: Corpus): number {
  const counts = new Map<string, number>();
  for (const { term } of tokens) if (weights.has(term)) counts.set(term, (counts.get(term) ?? 0) + 1);
  const norm = K1 * (1 - B + (B * tokens.length) / Math.max(corpus.averageLength, 1));
  let score = 0;
  for (const [term, tf] of counts) score += ((weights.get(term) ?? 0) * tf * (K1 + 1)) / (tf + norm);
  return score;
}

export const MARK_OPEN = "**";
export const MARK_CLOSE = "**";
/** Tokens a snippet shows at most. */
const SNIPPET_TOKENS = 24;

/**
 * The part of a text with the most query terms in `SNIPPET_TOKENS` tokens, its matched terms
 * between `**` and `**`, with `…` where the text goes on.
 */
export function snippetOf(text: string, terms: ReadonlySet<string>): string {
  const tokens = tokensOf(text);
  const hit = tokens.map((token) => terms.has(token.term));
  let best = 0;
  let bestHits = -1;
  let hits = 0;
  for (let i = 0; i < tokens.length; i++) {
    if (hit[i]) hits++;
    if (i >= SNIPPET_TOKENS && hit[i - SNIPPET_TOKENS]) hits--;
    if (hits > bestHits) {
      bestHits = hits;
      best = Math.max(0, i - SNIPPET_TOKENS + 1);
    }
  }
  const end = Math.min(tokens.length, best + SNIPPET_TOKENS);
  const from = best === 0 ? 0 : (tokens[best]?.start ?? 0);
  const to = end >= tokens.length ? text.length : (tokens[end - 1]?.end ?? text.length);
  let out = from > 0 ? "…" : "";
  let at = from;
  for (let i = best; i < end; i++) {
    const token = tokens[i];
    if (!token || !hit[i]) continue;
    out += `${text.slice(at, token.start)}${MARK_OPEN}${text.slice(token.start, token.end)}${MARK_CLOSE}`;
    at = token.end;
  }
  return `${out}${text.slice(at, to)}${to < text.length ? "…" : ""}`;
}
