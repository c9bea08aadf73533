import { COMPARISONS, compareTraits } from "./comparisons";
import type { Trait, TraitSet } from "./traits";
import { emptyUSample, type USample } from "./weights";

/** mulberry32: a seeded generator, so that a space in one state always draws the same sample. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The trait whose value the exact level of each comparison repeats: each is named for its trait. */
const EXACT_TRAIT: readonly Trait[] = COMPARISONS.map(({ name }) => name);

/**
 * What a sample of profiles (two people, nearly always) says about u: `pairs` pairs of them drawn
 * with `rand` compared level by level, and for each comparison how many of all pairs in the
 * sample repeat a latest value.
 */
export function sampleU(profiles: readonly TraitSet[], pairs: number, rand: () => number): USample {
  const sample = emptyUSample();
  if (profiles.length < 2) return sample;
  for (let n = 0; n < pairs; n++) {
    const i = Math.floor(rand() * profiles.length);
    let j = Math.floor(rand() * (profiles.length - 1));
    if (j >= i) j++;
    const pattern = compareTraits(profiles[i] as TraitSet, profiles[j] as TraitSet);
    pattern.forEach((level, k) => {
      if (level === null) return;
      (sample.compared[k] as number)++;
      const row = sample.levels[k] as number[];
      row[level] = (row[level] ?? 0) + 1;
    });
  }
  COMPARISONS.forEach((_, k) => {
    // Equal values counted in sorted runs, not in a map whose every new key joins the isolate's
    // string table (docs/performance.md).
    const values = profiles.flatMap((traits) => traits[EXACT_TRAIT[k] as Trait]?.[0] ?? []).sort();
    let [equal, run] = [0, 1];
    for (let i = 1; i <= values.length; i++) {
      if (i < values.length && values[i] === values[i - 1]) run++;
      else [equal, run] = [equal + (run * (run - 1)) / 2, 1];
    }
    sample.equal[k] = equal;
    sample.implied[k] = (values.length * (values.length - 1)) / 2;
  });
  return sample;
}
