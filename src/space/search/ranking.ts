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

/**
 * How much a word of the turns before a message counts next to a word of its own, in BM25F: the
 * answer to a question is often the turn after it, so the question's words find the answer at a
 * lower weight than the question itself. Chosen on the bench's conversational question set
 * (`test/bench/conversations.mjs`).
 */
export const NEAR_WEIGHT = 0.4;

/** What BM25F normalizes by: rows, and the average length of each field (own words, the turns' before). */
export interface FieldCorpus {
  rows: number;
  averageLength: number;
  averageNear: number;
}

/**
 * BM25F (Robertson, Zaragoza and Taylor, simple form) over two fields: each field's term count,
 * normalized by its own length, weighted and summed before BM25's saturation, so a word met in
 * both fields is not counted as two independent matches. With no near words it is `bm25`.
 */
export function bm25f(
  own: readonly string[],
  near: readonly string[],
  weights: ReadonlyMap<string, number>,
  corpus: FieldCorpus,
): number {
  const ownNorm = 1 - B + (B * own.length) / Math.max(corpus.averageLength, 1);
  const nearNorm = 1 - B + (B * near.length) / Math.max(corpus.averageNear, 1);
  const counts = new Map<string, number>();
  for (const term of own) if (weights.has(term)) counts.set(term, (counts.get(term) ?? 0) + 1 / ownNorm);
  for (const term of near) if (weights.has(term)) counts.set(term, (counts.get(term) ?? 0) + NEAR_WEIGHT / nearNorm);
  let score = 0;
  for (const [term, tf] of counts) score += ((weights.get(term) ?? 0) * tf * (K1 + 1)) / (tf + K1);
  return score;
}

export const MARK_OPEN = "**";
export const MARK_CLOSE = "**";
/** Tokens a snippet shows at most. */
const SNIPPET_TOKENS = 24;

/**
 * The part of a text with the most matched tokens in `SNIPPET_TOKENS` tokens (`matches` is asked
 * of each folded token), its matched tokens between `**` and `**`, with `…` where the text goes on.
 * The window with the most matches is centered on them: the tokens it has to spare around its
 * first and last match are shared before and after them (within the text), so the last match is
 * not the last token shown. No match: the first tokens.
 */
export function snippetOf(text: string, matches: (term: string) => boolean): string {
  const tokens = tokensOf(text);
  const hit = tokens.map((token) => matches(token.term));
  const best = centered(hit, mostMatched(hit), tokens.length);
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

/** Where the first window of `SNIPPET_TOKENS` tokens with the most matches starts (0 with none). */
function mostMatched(hit: readonly boolean[]): number {
  let best = 0;
  let bestHits = 0;
  let hits = 0;
  for (let i = 0; i < hit.length; i++) {
    if (hit[i]) hits++;
    if (i >= SNIPPET_TOKENS && hit[i - SNIPPET_TOKENS]) hits--;
    if (hits > bestHits) {
      bestHits = hits;
      best = Math.max(0, i - SNIPPET_TOKENS + 1);
    }
  }
  return best;
}

/**
 * The window starting at `start`, moved to center its matches: slack = window − (last match −
 * first match + 1), starting half the slack (rounded down) before the first match, kept within
 * `[0, tokens − window]`. Unmoved without a match.
 */
function centered(hit: readonly boolean[], start: number, tokens: number): number {
  const window = hit.slice(start, start + SNIPPET_TOKENS);
  const first = window.indexOf(true);
  if (first < 0) return start;
  const last = window.lastIndexOf(true);
  const slack = SNIPPET_TOKENS - (last - first + 1);
  return Math.max(0, Math.min(start + first - Math.floor(slack / 2), tokens - SNIPPET_TOKENS));
}
