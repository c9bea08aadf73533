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

/**
 * A key as stored: its 53-bit hash (cyrb53), so that blocks are keyed by integers. Two keys with
 * one hash would share a block: their profiles compared, which only costs a comparison.
 */
export function keyHash(key: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < key.length; i++) {
    const code = key.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** A profile's keys as stored (`keyHash`), in order. */
export function blockingKeyHashes(traits: TraitSet): number[] {
  return [...new Set(blockingKeys(traits).map(keyHash))].sort((x, y) => x - y);
}

/** A name's Soundex, or the name itself when it has no letter Soundex reads (digits, another script). */
function sound(name: string): string {
  return soundex(name) || name;
}
