import type { z } from "@hono/zod-openapi";
import type { AttributeTraitSchema } from "../../../contract/config";
/**
 * Traits: what a person's records say about them besides their handles (DESIGN 3.5), read from
 * system events' `attributes` by attribute name, normalized so that spellings of one value
 * compare equal, and the comparable part of the handles those events carry.
 */
export const TRAITS = [
  "given_name",
  "family_name",
  "birth_date",
  "postal_code",
  "street",
  "locality",
  "state",
  "email_local",
  "phone_national",
] as const;
export type Trait = (typeof TRAITS)[number];

/** What an attribute can be read as: a trait, or a full name split into given and family names. */
export type AttributeTrait = z.infer<typeof AttributeTraitSchema>;

/**
 * Attribute names read as each trait unless a space's `identity_traits` says otherwise (it maps
 * further names, or a name to null to ignore it).
 */
export const DEFAULT_TRAIT_ATTRIBUTES: Readonly<Record<string, AttributeTrait>> = {
  name: "full_name",
  full_name: "full_name",
  given_name: "given_name",
  first_name: "given_name",
  forename: "given_name",
  surname: "family_name",
  family_name: "family_name",
  last_name: "family_name",
  date_of_birth: "birth_date",
  dob: "birth_date",
  birth_date: "birth_date",
  birthdate: "birth_date",
  postal_code: "postal_code",
  postcode: "postal_code",
  zip: "postal_code",
  zip_code: "postal_code",
  street: "street",
  address: "street",
  street_address: "street",
  suburb: "locality",
  city: "locality",
  town: "locality",
  locality: "locality",
  state: "state",
};

export type TraitMapping = Readonly<Record<string, AttributeTrait | null>>;

/**
 * Latin letters that Unicode does not decompose into a base letter and a mark, written as the
 * letters they are spelled with in ASCII (so "Łukasz" compares and sounds as "Lukasz").
 */
const LATIN_LETTERS: Readonly<Record<string, string>> = {
  ł: "l",
  ø: "o",
  đ: "d",
  ð: "d",
  þ: "th",
  ß: "ss",
  æ: "ae",
  œ: "oe",
  ı: "i",
  ħ: "h",
};

/** Letters and digits of any script, lower-cased, accents and punctuation gone, one space between words. */
export function plainWords(value: string): string {
  return value
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[łøđðþßæœıħ]/g, (letter) => LATIN_LETTERS[letter] ?? letter)
    .replace(/['’`]/g, "")
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

const TITLES = new Set(["mr", "mrs", "ms", "miss", "mx", "dr", "prof", "sir", "dame"]);

/**
 * A full name as given and family name: "Family, Given" when written with a comma, else the last
 * word is the family name and the first the given name (middle names are dropped); one word
 * alone is taken as a given name.
 */
export function splitFullName(value: string): { given: string | null; family: string | null } {
  const comma = value.indexOf(",");
  if (comma >= 0) {
    const family = plainWords(value.slice(0, comma));
    const given = plainWords(value.slice(comma + 1)).split(" ")[0] ?? "";
    return { given: given || null, family: family || null };
  }
  const words = plainWords(value)
    .split(" ")
    .filter((word) => word !== "" && !TITLES.has(word));
  if (words.length === 0) return { given: null, family: null };
  if (words.length === 1) return { given: words[0] ?? null, family: null };
  return { given: words[0] ?? null, family: words.at(-1) ?? null };
}

/**
 * A date of birth as `YYYYMMDD`: ISO (`1980-05-17`, with a time or not), `YYYYMMDD`, or day
 * first (`17/05/1980`, `17.05.1980`). Null for anything else. Impossible days are kept: a typed
 * date with a wrong digit still compares one digit off.
 */
export function birthDate(value: string): string | null {
  const text = value.trim();
  const iso = /^(\d{4})[-/.]?(\d{2})[-/.]?(\d{2})(?:$|[T\s])/.exec(text);
  if (iso) return `${iso[1]}${iso[2]}${iso[3]}`;
  const dayFirst = /^(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})$/.exec(text);
  if (dayFirst) return `${dayFirst[3]}${(dayFirst[2] ?? "").padStart(2, "0")}${(dayFirst[1] ?? "").padStart(2, "0")}`;
  return null;
}

const STREET_WORDS: Record<string, string> = {
  st: "street",
  str: "street",
  rd: "road",
  ave: "avenue",
  av: "avenue",
  dr: "drive",
  ln: "lane",
  pl: "place",
  cres: "crescent",
  cr: "crescent",
  ct: "court",
  hwy: "highway",
  pde: "parade",
  tce: "terrace",
  blvd: "boulevard",
  sq: "square",
  cl: "close",
  cct: "circuit",
  apt: "unit",
  flat: "unit",
  u: "unit",
};

/** A street address as words, the usual abbreviations written out ("12 Smith St" = "12 smith street"). */
export function streetWords(value: string): string {
  return plainWords(value)
    .split(" ")
    .map((word) => (Object.hasOwn(STREET_WORDS, word) ? STREET_WORDS[word] : undefined) ?? word)
    .join(" ");
}

/** An attribute's value as its trait's values (a full name gives two), or nothing when it reads as none. */
function read(trait: AttributeTrait, value: string): [Trait, string][] {
  switch (trait) {
    case "full_name": {
      const { given, family } = splitFullName(value);
      const out: [Trait, string][] = [];
      if (given) out.push(["given_name", given]);
      if (family) out.push(["family_name", family]);
      return out;
    }
    case "birth_date": {
      const date = birthDate(value);
      return date ? [["birth_date", date]] : [];
    }
    case "postal_code": {
      const code = value
        .normalize("NFKC")
        .replace(/[^\p{L}\p{N}]/gu, "")
        .toUpperCase();
      return code ? [["postal_code", code]] : [];
    }
    case "street": {
      const street = streetWords(value);
      return street ? [["street", street]] : [];
    }
    default: {
      const words = plainWords(value);
      return words ? [[trait, words]] : [];
    }
  }
}

/**
 * The traits in an event's attributes. Given and family names written as their own attributes
 * win over those split from a full name in the same event.
 */
export function traitsOf(
  attributes: Readonly<Record<string, unknown>> | undefined,
  mapping: TraitMapping = {},
): [Trait, string][] {
  const found = new Map<Trait, string>();
  const split = new Map<Trait, string>();
  for (const [name, value] of Object.entries(attributes ?? {})) {
    // Own names only: an attribute named `constructor` or `toString` is no trait.
    const trait = Object.hasOwn(mapping, name)
      ? mapping[name]
      : Object.hasOwn(DEFAULT_TRAIT_ATTRIBUTES, name)
        ? DEFAULT_TRAIT_ATTRIBUTES[name]
        : null;
    if (!trait || typeof value !== "string") continue;
    for (const [read_, normalized] of read(trait, value)) {
      (trait === "full_name" ? split : found).set(read_, normalized);
    }
  }
  for (const [trait, value] of split) if (!found.has(trait)) found.set(trait, value);
  return [...found];
}

/**
 * What an event's handles add: an e-mail's local part (a `+tag` dropped) and a phone's last nine
 * digits (the national number without the country code for nearly every plan, without parsing).
 */
export function handleTraits(handles: readonly { type: string; value: string }[]): [Trait, string][] {
  const out: [Trait, string][] = [];
  for (const handle of handles) {
    if (handle.type === "email") {
      const local = (handle.value.split("@")[0] ?? "").split("+")[0] ?? "";
      if (local) out.push(["email_local", local]);
    } else if (handle.type === "phone_e164") {
      const digits = handle.value.replace(/\D/g, "");
      if (digits.length >= 7) out.push(["phone_national", digits.slice(-9)]);
    }
  }
  return out;
}

/** A profile's traits: per trait its values, the latest first, then up to two older ones that differ. */
export type TraitSet = Partial<Record<Trait, string[]>>;

/** Values kept per trait when comparing: the latest and the alternatives most recently seen. */
export const VALUES_PER_TRAIT = 3;
