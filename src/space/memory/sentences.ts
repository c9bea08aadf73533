/**
 * Sentences of chat text (docs/api/memory.md "Episodes"): chat ends sentences with a line break,
 * an emoji or nothing at all as often as with a full stop, and writes "e.g." and "Mr." inside them.
 */

/** A sentence: its text with whitespace collapsed, and where it stands in the text (UTF-16 offsets, end exclusive). */
export interface Sentence {
  text: string;
  start: number;
  end: number;
}

/**
 * Where a sentence may end: a run of line breaks; `.`, `!`, `?` or `…` (with closing quotes or
 * brackets) before whitespace; or a run of emoji before whitespace.
 */
const BOUNDARY =
  /[\r\n\u2028\u2029]+|(?<![.!?…])[.!?…]+["'”’)\]]*(?=\s)|(?<!\p{Extended_Pictographic}|\p{Emoji_Modifier}|\u200d|\ufe0f)\p{Extended_Pictographic}(?:\p{Extended_Pictographic}|\p{Emoji_Modifier}|\u200d|\ufe0f)*(?=\s)/gu;

/** `BOUNDARY` for ASCII text (no emoji, no Unicode properties). */
const ASCII_BOUNDARY = /[\r\n]+|(?<![.!?])[.!?]+["')\]]*(?=\s)/g;
const NOT_ASCII = /[\u0080-\uffff]/;

/** Words a full stop follows without ending the sentence ("Mr. Smith", "e.g. a refund", "approx. 3 days"). */
const ABBREVIATIONS = new Set(
  "mr mrs ms dr prof st sr jr mt ft vs etc eg ie cf approx appt apt dept est misc nr tel ref inc ltd co corp jan feb mar apr jun jul aug sep sept oct nov dec tue tues thu thur thurs fri".split(
    " ",
  ),
);
/** Whitespace `collapse` would change: any but a single space between words. */
const UNEVEN_SPACE = /[^\S ]| {2}|^ | $/;

/** A letter's or an e-mail's salutation, up to its comma ("Hi team,", "Dear Ms Lee,"): a sentence of its own. */
const SALUTATION = /^\s*(hi|hello|hey|hiya|dear|good (morning|afternoon|evening)|morning|evening)( [\p{L}'’.-]+){0,3}\s*,/iu;

/** How far before a full stop its word is looked for. */
const WORD_BEFORE_MAX = 32;
/** The word before a full stop: letters, with inner dots ("e.g", "p.m"). */
const WORD_BEFORE = /([\p{L}]+(?:\.[\p{L}]+)*)$/u;

/** The sentences of a text, in order; whitespace-only pieces are left out. Never throws. */
export function sentencesOf(text: string | null): Sentence[] {
  if (text === null || text === "") return [];
  const sentences: Sentence[] = [];
  let start = 0;
  const push = (end: number) => {
    const slice = text.slice(start, end);
    const piece = UNEVEN_SPACE.test(slice) ? collapse(slice) : slice;
    if (piece !== "") sentences.push({ text: piece, ...trimmed(text, start, end) });
    start = end;
  };
  const salutation = SALUTATION.exec(text);
  if (salutation) push(salutation[0].length);
  for (const match of text.matchAll(NOT_ASCII.test(text) ? BOUNDARY : ASCII_BOUNDARY)) {
    if (match.index < start) continue;
    const end = match.index + match[0].length;
    // The word before is in the last few characters: a longer slice would make a run of "Mr. Mr. …" quadratic.
    const before = text.slice(Math.max(start, match.index - WORD_BEFORE_MAX), match.index);
    if (match[0] === "." && !endsSentence(before, text.slice(end, end + 4))) continue;
    push(end);
  }
  push(text.length);
  return sentences;
}

/**
 * Whether a single full stop between `before` and `after` ends a sentence: not after an
 * abbreviation, an initial, "e.g", nor "No." before a number.
 */
function endsSentence(before: string, after: string): boolean {
  const word = WORD_BEFORE.exec(before)?.[1];
  if (word === undefined) return true;
  if (/^no$/i.test(word)) return !/^\s*\d/.test(after);
  if (word.includes(".")) return false; // "e.g", "i.e", "p.m", "U.S"
  if (word.length === 1) return word === "I" || word === "i" || !/\p{Lu}/u.test(word); // "J. Smith"
  return !ABBREVIATIONS.has(word.toLowerCase());
}

/** The offsets of a piece without its leading and trailing whitespace. */
function trimmed(text: string, start: number, end: number): { start: number; end: number } {
  let from = start;
  let to = end;
  while (from < to && /\s/.test(text[from] ?? "")) from++;
  while (to > from && /\s/.test(text[to - 1] ?? "")) to--;
  return { start: from, end: to };
}

export function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** A part of a summary ends like a sentence. */
export function punctuate(part: string): string {
  return /[.!?…]["'”’)\]]*$|\p{Extended_Pictographic}\ufe0f?$/u.test(part) ? part : `${part}.`;
}

/**
 * At most `limit` code points, so that a surrogate pair is never split; a cut falls between words
 * (unless one word fills the whole limit) and is marked with "…".
 */
export function cut(text: string, limit: number): string {
  if (text.length <= limit) return text; // fewer UTF-16 units, so fewer code points
  const whole = headOf(text, limit);
  if (whole.length === text.length) return text;
  const head = headOf(whole, limit - 1);
  const space = head.lastIndexOf(" ");
  const wholeWords = whole.slice(head.length) === " " || space <= 0 ? head : head.slice(0, space);
  return `${wholeWords.replace(/[\s,;:]+$/, "")}…`;
}

/**
 * The first `count` code points of a text (all of it when it has no more), as `Array.from` counts
 * them: a surrogate pair is one, a lone surrogate one. Walks the prefix only: the compiler cuts
 * every candidate highlight, and spreading each whole text into an array of its code points was
 * about 3 % of a compile.
 */
export function headOf(text: string, count: number): string {
  let index = 0;
  for (let points = 0; points < count && index < text.length; points++) {
    const unit = text.charCodeAt(index);
    const next = text.charCodeAt(index + 1);
    index += unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff ? 2 : 1;
  }
  return text.slice(0, index);
}

/** How many code points a text has (what the limits count). */
export const codePoints = (text: string): number => {
  let n = 0;
  for (const _ of text) n++;
  return n;
};
