import { jaroWinkler } from "./jaro-winkler";
import { nicknames } from "./nicknames";
import { soundex } from "./phonetic";
import type { Trait, TraitSet } from "./traits";

/**
 * The comparisons of two profiles (Fellegi-Sunter's comparison vector): each gives a level, from
 * the strongest agreement to `different`, or null when a side has no value (a missing value is
 * neutral: it weighs nothing). The order here is the order of a pattern's characters.
 */
export const COMPARISONS = [
  { name: "given_name", levels: ["exact", "close", "similar", "different"] },
  { name: "family_name", levels: ["exact", "swapped", "close", "similar", "different"] },
  { name: "birth_date", levels: ["exact", "transposed", "one_digit", "same_year", "different"] },
  { name: "postal_code", levels: ["exact", "one_digit", "different"] },
  { name: "street", levels: ["exact", "close", "similar", "different"] },
  { name: "locality", levels: ["exact", "close", "different"] },
  { name: "email_local", levels: ["exact", "close", "different"] },
  // Exact only: numbers one digit apart are a company's lines or neighbours in a plan, not typos.
  { name: "phone_national", levels: ["exact", "different"] },
] as const;

export type ComparisonName = (typeof COMPARISONS)[number]["name"];

/** Jaro-Winkler thresholds of the name levels (as Splink's defaults). */
export const CLOSE = 0.92;
export const SIMILAR = 0.8;

/** A comparison vector: per comparison its level's index, null when neutral. */
export type Pattern = (number | null)[];

/** A pattern as stored: one character per comparison, its level's index or `-`. */
export function encodePattern(pattern: Pattern): string {
  return pattern.map((level) => (level === null ? "-" : String(level))).join("");
}

export function decodePattern(text: string): Pattern {
  return [...text].map((char) => (char === "-" ? null : Number(char)));
}

const NONE: readonly string[] = [];
const values = (traits: TraitSet, trait: Trait): readonly string[] => traits[trait] ?? NONE;

/** The strongest level over every pair of values (the latest and the alternatives of each side). */
function best(a: readonly string[], b: readonly string[], level: (x: string, y: string) => number): number | null {
  if (a.length === 0 || b.length === 0) return null;
  let found = Number.POSITIVE_INFINITY;
  for (const x of a) for (const y of b) found = Math.min(found, level(x, y));
  return found;
}

function bestSimilarity(a: readonly string[], b: readonly string[]): number {
  let found = 0;
  for (const x of a) for (const y of b) found = Math.max(found, jaroWinkler(x, y));
  return found;
}

/**
 * Levels of one name part (`offset` 1 for the family name, whose level 1 is `swapped`): exact,
 * close, similar (Jaro-Winkler, or the same Soundex; for given names also a nickname or an
 * initial), different.
 */
function nameLevel(given: boolean) {
  const offset = given ? 0 : 1;
  return (x: string, y: string): number => {
    if (x === y) return 0;
    const similarity = jaroWinkler(x, y);
    if (similarity >= CLOSE) return 1 + offset;
    if (similarity >= SIMILAR || sameSound(x, y)) return 2 + offset;
    if (given && (nicknames(x, y) || initialOf(x, y) || initialOf(y, x))) return 2 + offset;
    return 3 + offset;
  };
}

/** The same Soundex, for names Soundex reads (Latin letters). */
function sameSound(x: string, y: string): boolean {
  const code = soundex(x);
  return code !== "" && code === soundex(y);
}

const givenLevel = nameLevel(true);
const familyLevel = nameLevel(false);

const initialOf = (initial: string, name: string) => initial.length === 1 && name.startsWith(initial);

/**
 * Given and family names: each by its own level, unless the two are written the other way round
 * on one side (both crosswise at least close, and closer than straight): then the family name is
 * `swapped` and the given name neutral, for it is one agreement (counted twice, a swapped name
 * would weigh more than the same name written the same way).
 */
function names(a: TraitSet, b: TraitSet): [number | null, number | null] {
  const [givenA, familyA, givenB, familyB] = [
    values(a, "given_name"),
    values(a, "family_name"),
    values(b, "given_name"),
    values(b, "family_name"),
  ];
  const given = best(givenA, givenB, givenLevel);
  const family = best(familyA, familyB, familyLevel);
  // Swapped only where straight does not already agree closely.
  if ((given ?? 3) <= 1 && (family ?? 4) <= 2) return [given, family];
  if (givenA.length === 0 || familyA.length === 0 || givenB.length === 0 || familyB.length === 0) return [given, family];
  const crossGiven = bestSimilarity(givenA, familyB);
  const crossFamily = bestSimilarity(familyA, givenB);
  if (crossGiven >= CLOSE && crossFamily >= CLOSE) {
    const straight = bestSimilarity(givenA, givenB) + bestSimilarity(familyA, familyB);
    if (crossGiven + crossFamily > straight) return [null, 1];
  }
  return [given, family];
}

/** Whether two digit strings of one length differ in one digit, or in two neighbours swapped (typing 1396 for 1936). */
export function oneDigitOff(x: string, y: string): boolean {
  if (x.length !== y.length) return false;
  const differ: number[] = [];
  for (let i = 0; i < x.length && differ.length <= 2; i++) if (x[i] !== y[i]) differ.push(i);
  if (differ.length === 1) return true;
  const [i, j] = differ as [number, number];
  return differ.length === 2 && j === i + 1 && x[i] === y[j] && x[j] === y[i];
}

/** `YYYYMMDD`: exact, day and month transposed, one digit off, the same year, different. */
function birthDateLevel(x: string, y: string): number {
  if (x === y) return 0;
  if (x.slice(0, 4) === y.slice(0, 4) && x.slice(4, 6) === y.slice(6, 8) && x.slice(6, 8) === y.slice(4, 6)) return 1;
  if (oneDigitOff(x, y)) return 2;
  if (x.slice(0, 4) === y.slice(0, 4)) return 3;
  return 4;
}

const oneOff = (x: string, y: string): number => (x === y ? 0 : oneDigitOff(x, y) ? 1 : 2);

/**
 * How many words two addresses share, each word matching a word of the other equal or nearly
 * (Jaro-Winkler ≥ 0.9, never between numbers), as a Dice coefficient: 1 for the same words.
 */
export function wordSimilarity(x: string, y: string): number {
  const wordsX = x.split(" ").filter(Boolean);
  const wordsY = y.split(" ").filter(Boolean);
  if (wordsX.length === 0 || wordsY.length === 0) return 0;
  const used = new Uint8Array(wordsY.length);
  let shared = 0;
  for (const word of wordsX) {
    const numeric = /\d/.test(word);
    for (let j = 0; j < wordsY.length; j++) {
      const other = wordsY[j] as string;
      if (used[j] === 1) continue;
      if (word === other || (!numeric && !/\d/.test(other) && jaroWinkler(word, other) >= 0.9)) {
        used[j] = 1;
        shared++;
        break;
      }
    }
  }
  return (2 * shared) / (wordsX.length + wordsY.length);
}

function streetLevel(x: string, y: string): number {
  if (x === y) return 0;
  const similarity = wordSimilarity(x, y);
  return similarity >= 0.8 ? 1 : similarity >= 0.5 ? 2 : 3;
}

const closeLevel = (x: string, y: string): number => (x === y ? 0 : jaroWinkler(x, y) >= CLOSE ? 1 : 2);

/**
 * The comparison vector of two profiles' traits. An address is one place however many parts say
 * so: the locality is neutral when the postal codes agree (it says again where that postal code
 * is, and two neighbours would look like one person), and after postal codes that differ a street
 * or locality that differs too is neutral (a person who moved changes all three at once; counted
 * three times, a move would outweigh a name and a birth date).
 */
export function compareTraits(a: TraitSet, b: TraitSet): Pattern {
  const [given, family] = names(a, b);
  const postal = best(values(a, "postal_code"), values(b, "postal_code"), oneOff);
  const moved = (level: number | null, different: number) => (postal === 2 && level === different ? null : level);
  return [
    given,
    family,
    best(values(a, "birth_date"), values(b, "birth_date"), birthDateLevel),
    postal,
    moved(best(values(a, "street"), values(b, "street"), streetLevel), 3),
    postal === 0 ? null : moved(best(values(a, "locality"), values(b, "locality"), closeLevel), 2),
    best(values(a, "email_local"), values(b, "email_local"), closeLevel),
    best(values(a, "phone_national"), values(b, "phone_national"), (x, y) => (x === y ? 0 : 1)),
  ];
}
