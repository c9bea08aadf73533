import { blockingKeys, MAX_BLOCK } from "./blocking";
import type { TraitSet } from "./traits";

/**
 * The candidate pairs the suggestions job keeps between runs, so that a run compares only the
 * profiles whose traits changed: each profile by an integer linkage id with its traits
 * (`linkage_profiles`), its blocking keys (`linkage_keys`; a key held by more than
 * `MAX_BLOCK` profiles keeps only a mark), the profiles a run compares again (`linkage_dirty`),
 * every candidate pair with its comparison pattern (`linkage_pairs`), and how many pairs have
 * each pattern (`linkage_patterns`, what EM reads). Integers, not UUID text, so that the rows a
 * run writes per profile are small.
 */

export interface PairRow {
  /** Linkage ids, `a` < `b`. */
  a: number;
  b: number;
  pattern: string;
  meetings: number;
}

/** The `lid` of a key's mark: the key came to be held by more than `MAX_BLOCK` profiles. */
const OVER_CAP = 0;

/** Adds `sign` to the count of each pattern (a pair found, or forgotten). */
function countPatterns(sql: SqlStorage, patterns: readonly string[], sign: 1 | -1): void {
  if (patterns.length === 0) return;
  const counts = new Map<string, number>();
  for (const pattern of patterns) counts.set(pattern, (counts.get(pattern) ?? 0) + sign);
  sql.exec(
    `INSERT INTO linkage_patterns (pattern, pairs) SELECT c.value ->> 0, c.value ->> 1 FROM json_each(?) c WHERE true
     ON CONFLICT (pattern) DO UPDATE SET pairs = pairs + excluded.pairs`,
    JSON.stringify([...counts]),
  );
  if (sign < 0) sql.exec("DELETE FROM linkage_patterns WHERE pairs <= 0");
}

/** Forgets the pairs of `lids` on either side, each side by its own index; answers their patterns. */
function deletePairsOf(sql: SqlStorage, lids: readonly number[]): string[] {
  // Two statements, each by its index: with OR, SQLite scans every pair.
  return ["a", "b"].flatMap((side) =>
    [
      ...sql
        .exec(
          `DELETE FROM linkage_pairs WHERE ${side} IN (SELECT value FROM json_each(?)) RETURNING pattern`,
          JSON.stringify(lids),
        )
        .raw<[string]>(),
    ].map(([pattern]) => pattern),
  );
}

/**
 * Marks profiles to be compared again in this run, and forgets the pairs they were in (their
 * patterns counted down): the run finds them again from their keys and meetings.
 */
export function markDirty(sql: SqlStorage, lids: readonly number[]): void {
  if (lids.length === 0) return;
  const fresh = [
    ...sql
      .exec(
        "INSERT INTO linkage_dirty (lid) SELECT value FROM json_each(?) WHERE true ON CONFLICT DO NOTHING RETURNING lid",
        JSON.stringify(lids),
      )
      .raw<[number]>(),
  ].map(([lid]) => lid);
  if (fresh.length > 0) countPatterns(sql, deletePairsOf(sql, fresh), -1);
}

/** The linkage ids of profiles, a row without traits made for any that has none (a profile known from meetings). */
export function linkageIds(sql: SqlStorage, profileIds: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  if (profileIds.length === 0) return out;
  const ids = JSON.stringify(profileIds);
  sql.exec(
    "INSERT INTO linkage_profiles (profile_id) SELECT value FROM json_each(?) WHERE true ON CONFLICT (profile_id) DO NOTHING",
    ids,
  );
  for (const [lid, profileId] of sql
    .exec("SELECT l.lid, l.profile_id FROM json_each(?) p CROSS JOIN linkage_profiles l ON l.profile_id = p.value", ids)
    .raw<[number, string]>()) {
    out.set(profileId, lid);
  }
  return out;
}

/**
 * Writes profiles (each once) as the job compares them, `traits[i]` those of `profileIds[i]`: their
 * traits, and their blocking keys (only the keys that changed are written; a key that now passes
 * `MAX_BLOCK` profiles keeps only its mark). Answers their linkage ids, and how many of them had no
 * traits before. (Profiles are matched by place, not in maps keyed by their ids: docs/performance.md.)
 */
export function writeProfiles(
  sql: SqlStorage,
  profileIds: readonly string[],
  traits: readonly TraitSet[],
): { lids: number[]; added: number } {
  if (profileIds.length === 0) return { lids: [], added: 0 };
  const ids = JSON.stringify(profileIds);
  const old: { had: boolean; keys: string[] }[] = profileIds.map(() => ({ had: false, keys: [] }));
  for (const [i, had, keys] of sql
    .exec(
      "SELECT p.key, l.traits IS NOT NULL, l.keys FROM json_each(?) p CROSS JOIN linkage_profiles l ON l.profile_id = p.value",
      ids,
    )
    .raw<[number, number, string]>()) {
    old[i] = { had: had === 1, keys: JSON.parse(keys) as string[] };
  }
  const keysOf = traits.map(blockingKeys);
  sql.exec(
    `INSERT INTO linkage_profiles (profile_id, traits, keys) SELECT r.value ->> 0, r.value ->> 1, r.value ->> 2 FROM json_each(?) r WHERE true
     ON CONFLICT (profile_id) DO UPDATE SET traits = excluded.traits, keys = excluded.keys`,
    JSON.stringify(profileIds.map((profileId, i) => [profileId, JSON.stringify(traits[i]), JSON.stringify(keysOf[i])])),
  );
  const lids = profileIds.map(() => 0);
  for (const [i, lid] of sql
    .exec("SELECT p.key, l.lid FROM json_each(?) p CROSS JOIN linkage_profiles l ON l.profile_id = p.value", ids)
    .raw<[number, number]>()) {
    lids[i] = lid;
  }
  const gone: [string, number][] = [];
  const added: [string, number][] = [];
  keysOf.forEach((keys, i) => {
    const [lid, before] = [lids[i] as number, old[i]?.keys ?? []];
    for (const key of before) if (!keys.includes(key)) gone.push([key, lid]);
    for (const key of keys) if (!before.includes(key)) added.push([key, lid]);
  });
  if (gone.length > 0) {
    sql.exec(
      "DELETE FROM linkage_keys WHERE (key, lid) IN (SELECT k.value ->> 0, k.value ->> 1 FROM json_each(?) k)",
      JSON.stringify(gone),
    );
  }
  if (added.length > 0) addKeys(sql, added);
  return { lids, added: old.filter((profile) => !profile.had).length };
}

/** Adds keys' members, except to keys marked; a key that passes `MAX_BLOCK` members is marked instead. */
function addKeys(sql: SqlStorage, rows: readonly [string, number][]): void {
  const grown = [
    ...sql
      .exec(
        `INSERT INTO linkage_keys (key, lid) SELECT k.value ->> 0, k.value ->> 1 FROM json_each(?1) k
       WHERE NOT EXISTS (SELECT 1 FROM linkage_keys o WHERE o.key = k.value ->> 0 AND o.lid = ?2)
       ON CONFLICT DO NOTHING RETURNING key`,
        JSON.stringify(rows),
        OVER_CAP,
      )
      .raw<[string]>(),
  ].map(([key]) => key);
  if (grown.length === 0) return;
  const over = [
    ...sql
      .exec(
        "SELECT DISTINCT j.value FROM json_each(?1) j WHERE (SELECT count(*) FROM (SELECT 1 FROM linkage_keys k WHERE k.key = j.value LIMIT ?2 + 1)) > ?2",
        JSON.stringify(grown),
        MAX_BLOCK,
      )
      .raw<[string]>(),
  ].map(([key]) => key);
  if (over.length === 0) return;
  sql.exec("DELETE FROM linkage_keys WHERE key IN (SELECT value FROM json_each(?))", JSON.stringify(over));
  sql.exec("INSERT INTO linkage_keys (key, lid) SELECT value, ? FROM json_each(?)", OVER_CAP, JSON.stringify(over));
}

/** Profiles' traits as the job last wrote them (a profile it has not read yet has none). */
export function comparedTraits(sql: SqlStorage, lids: readonly number[]): Map<number, TraitSet> {
  const out = new Map<number, TraitSet>();
  if (lids.length === 0) return out;
  const rows = sql
    .exec("SELECT l.lid, l.traits FROM json_each(?) p CROSS JOIN linkage_profiles l ON l.lid = p.value", JSON.stringify(lids))
    .raw<[number, string | null]>();
  for (const [lid, traits] of rows) out.set(lid, traits === null ? {} : (JSON.parse(traits) as TraitSet));
  return out;
}

/** Profiles' traits as the job last wrote them, in the order of `profileIds` (the random pairs for u). */
export function traitsByPlace(sql: SqlStorage, profileIds: readonly string[]): TraitSet[] {
  const out: TraitSet[] = profileIds.map(() => ({}));
  const rows = sql
    .exec(
      "SELECT p.key, l.traits FROM json_each(?) p CROSS JOIN linkage_profiles l ON l.profile_id = p.value WHERE l.traits IS NOT NULL",
      JSON.stringify(profileIds),
    )
    .raw<[number, string]>();
  for (const [i, traits] of rows) out[i] = JSON.parse(traits) as TraitSet;
  return out;
}

/** The profile ids of linkage ids (a profile forgotten meanwhile has none). */
export function profileIdsOf(sql: SqlStorage, lids: readonly number[]): Map<number, string> {
  if (lids.length === 0) return new Map();
  return new Map([
    ...sql
      .exec(
        "SELECT l.lid, l.profile_id FROM json_each(?) p CROSS JOIN linkage_profiles l ON l.lid = p.value",
        JSON.stringify(lids),
      )
      .raw<[number, string]>(),
  ]);
}

/**
 * The partners each of `lids` (marked dirty) is compared with: every profile sharing a key (a
 * marked key has no members). A pair of two dirty profiles is found once, by the one with the
 * lower id, so a run compares it once.
 */
export function partnersOf(sql: SqlStorage, lids: readonly number[]): [number, number][] {
  if (lids.length === 0) return [];
  return [
    ...sql
      .exec(
        `WITH mine AS (
         SELECT k.value AS key, l.lid AS p
         FROM json_each(?1) d CROSS JOIN linkage_profiles l ON l.lid = d.value CROSS JOIN json_each(l.keys) k
       )
       SELECT DISTINCT mine.p, o.lid FROM mine CROSS JOIN linkage_keys o ON o.key = mine.key
       WHERE o.lid <> mine.p AND o.lid <> ?2
         AND (o.lid > mine.p OR NOT EXISTS (SELECT 1 FROM linkage_dirty d WHERE d.lid = o.lid))`,
        JSON.stringify(lids),
        OVER_CAP,
      )
      .raw<[number, number]>(),
  ];
}

/**
 * Blocks in key order after `after` (from it, when `from`), from about `rows` rows of
 * `linkage_keys`: each key with its profiles in order, whole (a block cut by the limit waits for
 * the next call, unless it is the only one: then it is answered with its first rows only). Marks
 * are no members. Null when none is left.
 */
export function blocksAfter(
  sql: SqlStorage,
  after: string,
  rows: number,
  from = false,
): { blocks: [string, number[]][]; last: string } | null {
  // Rows come in key order, so a block is a run of rows: grouped in an array, never a map keyed
  // by the keys (each key a map takes is added to the isolate's string table: docs/performance.md).
  const blocks: [string, number[]][] = [];
  let read = 0;
  for (const [key, lid] of sql
    .exec(
      `SELECT key, lid FROM linkage_keys WHERE key ${from ? ">=" : ">"} ? AND lid <> ? ORDER BY key, lid LIMIT ?`,
      after,
      OVER_CAP,
      rows,
    )
    .raw<[string, number]>()) {
    read++;
    const block = blocks.at(-1);
    if (block !== undefined && block[0] === key) block[1].push(lid);
    else blocks.push([key, [lid]]);
  }
  const lastBlock = blocks.at(-1);
  if (lastBlock === undefined) return null;
  if (read === rows && blocks.length > 1) blocks.pop();
  return { blocks, last: (blocks.at(-1) ?? lastBlock)[0] };
}

/**
 * Whether the job has compared no profile yet and keeps no pair (its first run walks every block
 * instead of each changed profile). A run before any profile had traits may still keep pairs
 * from meetings: those must be compared again when their profiles change, as every run does.
 */
export function nothingCompared(sql: SqlStorage): boolean {
  return sql.exec("SELECT 1 FROM linkage_profiles UNION ALL SELECT 1 FROM linkage_pairs LIMIT 1").toArray().length === 0;
}

/** Adds pairs not kept yet (`a` < `b`), their patterns counted. */
export function addPairs(sql: SqlStorage, pairs: readonly PairRow[]): void {
  if (pairs.length === 0) return;
  const added = [
    ...sql
      .exec(
        `INSERT INTO linkage_pairs (a, b, pattern, meetings)
       SELECT p.value ->> 0, p.value ->> 1, p.value ->> 2, p.value ->> 3 FROM json_each(?) p WHERE true
       ON CONFLICT DO NOTHING RETURNING pattern`,
        JSON.stringify(pairs.map((pair) => [pair.a, pair.b, pair.pattern, pair.meetings])),
      )
      .raw<[string]>(),
  ].map(([pattern]) => pattern);
  countPatterns(sql, added, 1);
}

/**
 * A pair of linkage ids (`a` < `b`) as one number, exact while linkage ids stay below 2^26: a map
 * keyed by it adds nothing to the isolate's string table, as keys like `a|b` would
 * (docs/performance.md).
 */
export function pairNumber(a: number, b: number): number {
  return a * 2 ** 26 + b;
}

/** The kept pairs among `pairs` (`a` < `b`), by `pairNumber`. */
export function keptPairs(sql: SqlStorage, pairs: readonly [number, number][]): Map<number, PairRow> {
  const out = new Map<number, PairRow>();
  if (pairs.length === 0) return out;
  const rows = sql
    .exec(
      `SELECT l.a, l.b, l.pattern, l.meetings FROM json_each(?) p
       CROSS JOIN linkage_pairs l ON l.a = p.value ->> 0 AND l.b = p.value ->> 1`,
      JSON.stringify(pairs),
    )
    .raw<[number, number, string, number]>();
  for (const [a, b, pattern, meetings] of rows) out.set(pairNumber(a, b), { a, b, pattern, meetings });
  return out;
}

export function setMeetings(sql: SqlStorage, pairs: readonly PairRow[]): void {
  if (pairs.length === 0) return;
  sql.exec(
    `UPDATE linkage_pairs SET meetings = p.value ->> 2 FROM json_each(?) p
     WHERE linkage_pairs.a = p.value ->> 0 AND linkage_pairs.b = p.value ->> 1`,
    JSON.stringify(pairs.map((pair) => [pair.a, pair.b, pair.meetings])),
  );
}

/**
 * Kept pairs after `after` with `a` below `before`, in pair order, whose pattern is among
 * `patterns` or whose profiles met: the others are passed over inside SQLite.
 */
export function reachingPairs(
  sql: SqlStorage,
  after: readonly [number, number],
  before: number,
  patterns: readonly string[],
  limit: number,
): PairRow[] {
  const out: PairRow[] = [];
  for (const [a, b, pattern, meetings] of sql
    .exec(
      `SELECT a, b, pattern, meetings FROM linkage_pairs
       WHERE (a, b) > (?1, ?2) AND a < ?3 AND (meetings > 0 OR pattern IN (SELECT value FROM json_each(?4)))
       ORDER BY a, b LIMIT ?5`,
      ...after,
      before,
      JSON.stringify(patterns),
      limit,
    )
    .raw<[number, number, string, number]>()) {
    out.push({ a, b, pattern, meetings });
  }
  return out;
}

/** The highest `a` of a kept pair (0 when none). */
export function maxPairLid(sql: SqlStorage): number {
  return sql.exec("SELECT max(a) FROM linkage_pairs").raw<[number | null]>().next().value?.[0] ?? 0;
}

/** Every pattern with how many kept pairs have it. */
export function patternCounts(sql: SqlStorage): [string, number][] {
  return [...sql.exec("SELECT pattern, pairs FROM linkage_patterns").raw<[string, number]>()];
}

/** Dirty profiles after `after`, in order. */
export function dirtyAfter(sql: SqlStorage, after: number, limit: number): number[] {
  return [...sql.exec("SELECT lid FROM linkage_dirty WHERE lid > ? ORDER BY lid LIMIT ?", after, limit).raw<[number]>()].map(
    ([lid]) => lid,
  );
}

/** Forgets up to `limit` dirty marks; answers how many went. */
export function forgetDirty(sql: SqlStorage, limit: number): number {
  return sql.exec("DELETE FROM linkage_dirty WHERE lid IN (SELECT lid FROM linkage_dirty LIMIT ?) RETURNING 1", limit).toArray()
    .length;
}

/**
 * Forgets what the job keeps of profiles (an erasure, `privacy/identity-cut.ts`): their rows, keys,
 * marks and pairs, each pair's pattern counted down as `markDirty` does. Answers how many profile
 * rows and pairs went.
 */
export function forgetLinkage(sql: SqlStorage, profileIds: readonly string[]): number {
  const rows = [
    ...sql
      .exec(
        "DELETE FROM linkage_profiles WHERE profile_id IN (SELECT value FROM json_each(?)) RETURNING lid, keys",
        JSON.stringify(profileIds),
      )
      .raw<[number, string]>(),
  ];
  if (rows.length === 0) return 0;
  const lids = rows.map(([lid]) => lid);
  const keys = rows.flatMap(([lid, keys]) => (JSON.parse(keys) as string[]).map((key) => [key, lid]));
  if (keys.length > 0) {
    sql.exec(
      "DELETE FROM linkage_keys WHERE (key, lid) IN (SELECT k.value ->> 0, k.value ->> 1 FROM json_each(?) k)",
      JSON.stringify(keys),
    );
  }
  sql.exec("DELETE FROM linkage_dirty WHERE lid IN (SELECT value FROM json_each(?))", JSON.stringify(lids));
  const patterns = deletePairsOf(sql, lids);
  countPatterns(sql, patterns, -1);
  return rows.length + patterns.length;
}
