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
 */
export function blockingKeys(traits: TraitSet): string[] {
  const keys = new Set<string>();
  for (const code of traits.postal_code ?? []) keys.add(`p:${code}`);
  for (const date of traits.birth_date ?? []) {
    const [month, day] = [date.slice(4, 6), date.slice(6, 8)].sort();
    keys.add(`b:${date.slice(0, 4)}${month}${day}`);
  }
  for (const given of traits.given_name ?? []) {
    for (const family of traits.family_name ?? []) {
      keys.add(`n:${sound(family)}:${given[0]}`);
      keys.add(`n:${sound(given)}:${family[0]}`);
      keys.add(`i:${given.slice(0, 2)}:${family.slice(0, 2)}`);
    }
  }
  for (const local of traits.email_local ?? []) keys.add(`e:${local}`);
  for (const phone of traits.phone_national ?? []) keys.add(`t:${phone}`);
  return [...keys];
}

/** A name's Soundex, or the name itself when it has no letter Soundex reads (digits, another script). */
function sound(name: string): string {
  return soundex(name) || name;
}
