import { stem } from "porter2";
import { baseStem } from "./irregular-forms";
import { STOP_WORDS } from "./stop-words";
import { termsOf } from "./tokens";

/**
 * The words plain search matches by (docs/api/search.md): each token as the index folds it, without
 * function words, reduced to its Porter2 (Snowball English) stem, so that "moved" finds "moving".
 * The same function makes what `search_stems` holds and the terms of a query, so both sides agree
 * by construction. Only tokens of the letters a to z are stemmed: the algorithm is defined on
 * them, and a token of another script, or one with digits (an order number), stays whole.
 */
const ENGLISH = /^[a-z]+$/;

export const isStopWord = (term: string) => STOP_WORDS.has(term);

/**
 * A token longer than this is no word (an encoded blob, a key pressed down): plain search leaves
 * it out, so that a message of one such token of a megabyte does not make rows of megabytes (its
 * own and, as near words, its next turns'). `mode: "fts5"` still finds it as written.
 */
export const MAX_TERM_CHARS = 64;

/**
 * Stems already made: words repeat (Zipf's law), and a batch stems every message and the turns
 * before it. Bounded; emptied when full.
 */
const known = new Map<string, string>();
const KNOWN_STEMS = 50_000;

/** The stem of a folded token (see `foldTerm`). */
export function stemOf(term: string): string {
  let stemmed = known.get(term);
  if (stemmed === undefined) {
    stemmed = ENGLISH.test(term) ? stem(term) : term;
    if (known.size >= KNOWN_STEMS) known.clear();
    known.set(term, stemmed);
  }
  return stemmed;
}

/** The stems of a text's words that carry weight, in order: what `search_stems` holds of it. */
export function stemsOf(text: string): string[] {
  const stems: string[] = [];
  for (const term of termsOf(text)) if (term.length <= MAX_TERM_CHARS && !isStopWord(term)) stems.push(stemOf(term));
  return stems;
}

/**
 * The distinct stems of a plain query's words that carry weight, in the order written, at most
 * `max`; empty when every word is a function word (such a query is searched word for word). An
 * irregular form is asked as its base (`went` as `go`: `indexedStems` matches every form).
 */
export function queryStems(query: string, max: number): string[] {
  const stems = new Set<string>();
  for (const stem of stemsOf(query)) {
    stems.add(baseStem(stem));
    if (stems.size >= max) break;
  }
  return [...stems];
}
