import { soundex } from "./phonetic";
import type { TraitSet } from "./traits";

/**
 * Blocking (DESIGN 3.5): only profiles that share a key are compared, so the pairs a space
 * compares grow with its profiles, not with their square. A key shared by more than
 * `MAX_BLOCK` profiles (a common postal code in a large space, a popular birthday) is skipped:
 * it would cost `MAX_BLOCK`² comparisons and tell little; the other keys still bring true pairs.
 */
export const MAX_BLOCK = 50;

/**
 * The keys of a profile's traits, over its latest values and their alternatives: the postal
 * code; the birth date with day and month in order (so transposed dates meet); the family name's
 * Soundex with the given name's initial, and the same crosswise (so swapped names meet); the
 * first two letters of each name; an e-mail's local part; a phone's national number.
 * (A handful of keys: an array, not a `Set`, whose every new key would join the isolate's string
 * table: docs/performance.md.)
 */
export function blockingKeys(traits: TraitSet): string[] {
  const keys: string[] = [];
  const add = (key: string) => {
    if (!keys.includes(key)) keys.push(key);
  };
  for (const code of traits.postal_code ?? []) add(`p:${code}`);
  for (const date of traits.birth_date ?? []) {
    const [month, day] = [date.slice(4, 6), date.slice(6, 8)].sort();
    add(`b:${date.slice(0, 4)}${month}${day}`);
  }
  for (const given of traits.given_name ?? []) {
    for (const family of traits.family_name ?? []) {
      add(`n:${sound(family)}:${given[0]}`);
      add(`n:${sound(given)}:${family[0]}`);
      add(`i:${given.slice(0, 2)}:${family.slice(0, 2)}`);
    }
  }
  for (const local of traits.email_local ?? []) add(`e:${local}`);
  for (const phone of traits.phone_national ?? []) add(`t:${phone}`);
  return keys;
}

/** A name's Soundex, or the name itself when it has no letter Soundex reads (digits, another script). */
function sound(name: string): string {
  return soundex(name) || name;
}
