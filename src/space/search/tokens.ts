/**
 * Tokens as the index's tokenizer makes them (`unicode61 remove_diacritics 2`): runs of letters,
 * digits and private-use characters, lower-cased, accents removed. The query side and the
 * ranking use the same rule, so that what is counted is what the index matched.
 */
const TOKEN = /[\p{L}\p{N}\p{Co}\p{M}]+/gu;
const MARKS = /\p{M}/gu;

/** One token of a text, with where it stands in the text (UTF-16 offsets). */
export interface Token {
  term: string;
  start: number;
  end: number;
}

export function foldTerm(raw: string): string {
  return raw.normalize("NFD").replace(MARKS, "").toLowerCase();
}

export function tokensOf(text: string): Token[] {
  const tokens: Token[] = [];
  for (const match of text.matchAll(TOKEN)) {
    const term = foldTerm(match[0]);
    if (term !== "") tokens.push({ term, start: match.index, end: match.index + match[0].length });
  }
  return tokens;
}

/** A text of ASCII only, the common case: its tokens are runs of letters and digits, folded by lower-casing. */
const NOT_ASCII = /[\u0080-\uffff]/;
const ASCII_TOKEN = /[a-z0-9]+/g;

/**
 * The folded terms of a text, in order, without their places: `tokensOf`'s terms, faster for
 * ASCII text (the batch path stems every message).
 */
export function termsOf(text: string): string[] {
  if (!NOT_ASCII.test(text)) return text.toLowerCase().match(ASCII_TOKEN) ?? [];
  return tokensOf(text).map((token) => token.term);
}

/** The distinct terms of a plain-text query, in the order written, at most `max`. */
export function queryTerms(query: string, max: number): string[] {
  const terms = new Set<string>();
  for (const { term } of tokensOf(query)) {
    terms.add(term);
    if (terms.size >= max) break;
  }
  return [...terms];
}

/** An FTS5 string: text between double quotes (doubled inside) is a phrase, never syntax. */
export const ftsString = (text: string) => `"${text.replaceAll('"', '""')}"`;

/** An id as one token of the `profile`, `source` and `session` columns. */
export const idToken = (id: string) => id.replaceAll("-", "").toLowerCase();
