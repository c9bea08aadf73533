import { describe, expect, it } from "vitest";
import { blockingKeys, MAX_BLOCK } from "../../src/space/identity/linkage/blocking";
import { compareTraits, decodePattern, encodePattern } from "../../src/space/identity/linkage/comparisons";
import { sampleU, seeded } from "../../src/space/identity/linkage/random-pairs";
import { DEFAULT_SUGGESTION_THRESHOLD } from "../../src/space/identity/linkage/threshold";
import { type TraitSet, traitsOf } from "../../src/space/identity/linkage/traits";
import { estimateModel, levelWeights, matchWeight, probabilityOf, uFromSample } from "../../src/space/identity/linkage/weights";
import { pairwise, personRecords } from "../bench/person-records.mjs";

interface Labelled {
  id: string;
  cluster: number;
  attributes: Record<string, string>;
}

/**
 * The figure `npm run bench` measures through the service (`suggestion_precision`,
 * `suggestion_recall`), here on the pure functions the job is made of, quick enough for a test:
 * the generator's labelled records, blocked, compared, weighed by EM, cut at the default threshold.
 */
describe("suggestions on labelled person records", () => {
  it("find at least 90 % of the true pairs at a precision of at least 0.95 (2,000 records)", () => {
    const records = personRecords({ count: 2_000, seed: 11 }) as unknown as Labelled[];
    const traits: TraitSet[] = records.map((record) => {
      const set: TraitSet = {};
      for (const [trait, value] of traitsOf(record.attributes)) set[trait] = [value];
      return set;
    });
    const blocks = new Map<string, number[]>();
    traits.forEach((set, i) => {
      for (const key of blockingKeys(set)) blocks.set(key, [...(blocks.get(key) ?? []), i]);
    });
    const pairs = new Map<string, string>();
    for (const members of blocks.values()) {
      if (members.length > MAX_BLOCK) continue;
      for (const [n, a] of members.entries()) {
        for (const b of members.slice(n + 1)) {
          pairs.set(`${a}|${b}`, encodePattern(compareTraits(traits[a] as TraitSet, traits[b] as TraitSet)));
        }
      }
    }
    // Candidate pairs grow with the records, not with their square.
    expect(pairs.size).toBeLessThan(records.length * 15);
    const counts = new Map<string, number>();
    for (const pattern of pairs.values()) counts.set(pattern, (counts.get(pattern) ?? 0) + 1);
    const u = uFromSample(sampleU(traits, 10_000, seeded(1)));
    const model = estimateModel(
      [...counts].map(([pattern, count]) => [decodePattern(pattern), count]),
      u,
      (traits.length * (traits.length - 1)) / 2,
    );
    const weights = levelWeights(model);
    const found = [...pairs]
      .filter(
        ([, pattern]) =>
          probabilityOf(matchWeight(decodePattern(pattern), weights, model.lambda)) >= DEFAULT_SUGGESTION_THRESHOLD,
      )
      .map(([pair]) => pair.split("|").map((i) => records[Number(i)]?.id));
    const { precision, recall } = pairwise(records, found);
    expect(precision).toBeGreaterThanOrEqual(0.95);
    expect(recall).toBeGreaterThanOrEqual(0.9);
  }, 60_000);
});
