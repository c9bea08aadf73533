import { blockingKeys } from "./blocking";
import type { TraitSet } from "./traits";

/**
 * The candidate pairs the suggestions job keeps between runs, so that a run compares only the
 * profiles whose traits changed: each profile's blocking keys (`linkage_keys`), the profiles a
 * run compares again (`linkage_dirty`), every candidate pair with its comparison pattern
 * (`linkage_pairs`), and how many pairs have each pattern (`linkage_patterns`, what EM reads).
 */

export interface PairRow {
  profileA: string;
  profileB: string;
  pattern: string;
  meetings: number;
}

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

/**
 * Marks profiles to be compared again in this run, and forgets the pairs they were in (their
 * patterns counted down): the run finds them again from their keys and meetings.
 */
export function markDirty(sql: SqlStorage, profiles: readonly string[]): void {
  if (profiles.length === 0) return;
  const fresh = sql
    .exec<{ profile_id: string }>(
      "INSERT INTO linkage_dirty (profile_id) SELECT value FROM json_each(?) WHERE true ON CONFLICT DO NOTHING RETURNING profile_id",
      JSON.stringify(profiles),
    )
    .toArray()
    .map((row) => row.profile_id);
  if (fresh.length === 0) return;
  // Two statements, each by its index: with OR, SQLite scans every pair.
  const gone = ["profile_a", "profile_b"].flatMap((side) =>
    sql
      .exec<{ pattern: string }>(
        `DELETE FROM linkage_pairs WHERE ${side} IN (SELECT value FROM json_each(?)) RETURNING pattern`,
        JSON.stringify(fresh),
      )
      .toArray()
      .map((row) => row.pattern),
  );
  countPatterns(sql, gone, -1);
}

/**
 * Writes profiles as the job compares them: their traits, and their blocking keys (only the keys
 * that changed are written). Answers how many of them are new (the profiles with traits grew).
 */
export function writeProfiles(sql: SqlStorage, traitsOf: ReadonlyMap<string, TraitSet>): number {
  if (traitsOf.size === 0) return 0;
  const old = new Map(
    sql
      .exec<{ profile_id: string; keys: string }>(
        "SELECT l.profile_id, l.keys FROM json_each(?) p CROSS JOIN linkage_profiles l ON l.profile_id = p.value",
        JSON.stringify([...traitsOf.keys()]),
      )
      .toArray()
      .map((row) => [row.profile_id, new Set(JSON.parse(row.keys) as string[])]),
  );
  const gone: [string, string][] = [];
  const added: [string, string][] = [];
  const rows: [string, string, string][] = [];
  for (const [profileId, traits] of traitsOf) {
    const keys = blockingKeys(traits);
    const before = old.get(profileId) ?? new Set<string>();
    for (const key of before) if (!keys.includes(key)) gone.push([key, profileId]);
    for (const key of keys) if (!before.has(key)) added.push([key, profileId]);
    rows.push([profileId, JSON.stringify(traits), JSON.stringify(keys)]);
  }
  if (gone.length > 0) {
    sql.exec(
      "DELETE FROM linkage_keys WHERE (key, profile_id) IN (SELECT k.value ->> 0, k.value ->> 1 FROM json_each(?) k)",
      JSON.stringify(gone),
    );
  }
  if (added.length > 0) {
    sql.exec(
      "INSERT INTO linkage_keys (key, profile_id) SELECT k.value ->> 0, k.value ->> 1 FROM json_each(?) k WHERE true ON CONFLICT DO NOTHING",
      JSON.stringify(added),
    );
  }
  sql.exec(
    `INSERT INTO linkage_profiles (profile_id, traits, keys) SELECT r.value ->> 0, r.value ->> 1, r.value ->> 2 FROM json_each(?) r WHERE true
     ON CONFLICT (profile_id) DO UPDATE SET traits = excluded.traits, keys = excluded.keys`,
    JSON.stringify(rows),
  );
  return traitsOf.size - old.size;
}

/** Profiles' traits as the job last wrote them (a profile it has not read yet has none). */
export function comparedTraits(sql: SqlStorage, profileIds: readonly string[]): Map<string, TraitSet> {
  const out = new Map<string, TraitSet>();
  if (profileIds.length === 0) return out;
  const rows = sql
    .exec(
      "SELECT l.profile_id, l.traits FROM json_each(?) p CROSS JOIN linkage_profiles l ON l.profile_id = p.value",
      JSON.stringify(profileIds),
    )
    .raw<[string, string]>();
  for (const [profileId, traits] of rows) out.set(profileId, JSON.parse(traits) as TraitSet);
  return out;
}

/**
 * The partners each of `profiles` (marked dirty) is compared with: every profile sharing a key
 * held by at most `cap` profiles. A pair of two dirty profiles is found once, by the one that
 * sorts first, so a run compares it once.
 */
export function partnersOf(sql: SqlStorage, profiles: readonly string[], cap: number): [string, string][] {
  if (profiles.length === 0) return [];
  return sql
    .exec<{ p: string; q: string }>(
      `WITH mine AS (
         SELECT k.value AS key, l.profile_id AS p
         FROM json_each(?1) d CROSS JOIN linkage_profiles l ON l.profile_id = d.value CROSS JOIN json_each(l.keys) k
       ),
       small AS (
         SELECT key FROM (SELECT DISTINCT key FROM mine) m
         WHERE (SELECT count(*) FROM (SELECT 1 FROM linkage_keys x WHERE x.key = m.key LIMIT ?2 + 1)) <= ?2
       )
       SELECT DISTINCT mine.p, o.profile_id AS q FROM mine CROSS JOIN small ON small.key = mine.key
         CROSS JOIN linkage_keys o ON o.key = mine.key
       WHERE o.profile_id <> mine.p
         AND (o.profile_id > mine.p OR NOT EXISTS (SELECT 1 FROM linkage_dirty d WHERE d.profile_id = o.profile_id))`,
      JSON.stringify(profiles),
      cap,
    )
    .toArray()
    .map((row) => [row.p, row.q]);
}

/**
 * Blocks in key order after `after` (from it, when `from`), from about `rows` rows of
 * `linkage_keys`: each key with its profiles in order, whole (a block cut by the limit waits for
 * the next call, unless it is the only one: then it is larger than any cap and answered with its
 * first rows only). Null when none is left.
 */
export function blocksAfter(
  sql: SqlStorage,
  after: string,
  rows: number,
  from = false,
): { blocks: [string, string[]][]; last: string } | null {
  const blocks = new Map<string, string[]>();
  let read = 0;
  let lastKey: string | undefined;
  for (const [key, profileId] of sql
    .exec(
      `SELECT key, profile_id FROM linkage_keys WHERE key ${from ? ">=" : ">"} ? ORDER BY key, profile_id LIMIT ?`,
      after,
      rows,
    )
    .raw<[string, string]>()) {
    read++;
    if (key === lastKey) (blocks.get(key) as string[]).push(profileId);
    else blocks.set(key, [profileId]);
    lastKey = key;
  }
  if (lastKey === undefined) return null;
  if (read === rows && blocks.size > 1) blocks.delete(lastKey);
  const keys = [...blocks.keys()];
  return { blocks: [...blocks], last: keys.at(-1) ?? lastKey };
}

/**
 * Whether the job has compared no profile yet and keeps no pair (its first run walks every block
 * instead of each changed profile). A run before any profile had traits may still keep pairs
 * from meetings: those must be compared again when their profiles change, as every run does.
 */
export function nothingCompared(sql: SqlStorage): boolean {
  return sql.exec("SELECT 1 FROM linkage_profiles UNION ALL SELECT 1 FROM linkage_pairs LIMIT 1").toArray().length === 0;
}

/** Adds pairs not kept yet (in `profile_a` < `profile_b` order), their patterns counted. */
export function addPairs(sql: SqlStorage, pairs: readonly PairRow[]): void {
  if (pairs.length === 0) return;
  const added = sql
    .exec<{ pattern: string }>(
      `INSERT INTO linkage_pairs (profile_a, profile_b, pattern, meetings)
       SELECT p.value ->> 0, p.value ->> 1, p.value ->> 2, p.value ->> 3 FROM json_each(?) p WHERE true
       ON CONFLICT DO NOTHING RETURNING pattern`,
      JSON.stringify(pairs.map((pair) => [pair.profileA, pair.profileB, pair.pattern, pair.meetings])),
    )
    .toArray()
    .map((row) => row.pattern);
  countPatterns(sql, added, 1);
}

/** The kept pairs among `pairs`, by `a|b`. */
export function keptPairs(sql: SqlStorage, pairs: readonly [string, string][]): Map<string, PairRow> {
  const out = new Map<string, PairRow>();
  if (pairs.length === 0) return out;
  const rows = sql.exec<{ profile_a: string; profile_b: string; pattern: string; meetings: number }>(
    `SELECT l.profile_a, l.profile_b, l.pattern, l.meetings FROM json_each(?) p
     CROSS JOIN linkage_pairs l ON l.profile_a = p.value ->> 0 AND l.profile_b = p.value ->> 1`,
    JSON.stringify(pairs),
  );
  for (const row of rows) {
    out.set(`${row.profile_a}|${row.profile_b}`, {
      profileA: row.profile_a,
      profileB: row.profile_b,
      pattern: row.pattern,
      meetings: row.meetings,
    });
  }
  return out;
}

export function setMeetings(sql: SqlStorage, pairs: readonly PairRow[]): void {
  if (pairs.length === 0) return;
  sql.exec(
    `UPDATE linkage_pairs SET meetings = p.value ->> 2 FROM json_each(?) p
     WHERE linkage_pairs.profile_a = p.value ->> 0 AND linkage_pairs.profile_b = p.value ->> 1`,
    JSON.stringify(pairs.map((pair) => [pair.profileA, pair.profileB, pair.meetings])),
  );
}

/** Kept pairs after `after`, in pair order. */
export function pairsAfter(sql: SqlStorage, after: readonly [string, string], limit: number): PairRow[] {
  const out: PairRow[] = [];
  for (const [profileA, profileB, pattern, meetings] of sql
    .exec(
      "SELECT profile_a, profile_b, pattern, meetings FROM linkage_pairs WHERE (profile_a, profile_b) > (?, ?) ORDER BY profile_a, profile_b LIMIT ?",
      ...after,
      limit,
    )
    .raw<[string, string, string, number]>()) {
    out.push({ profileA, profileB, pattern, meetings });
  }
  return out;
}

/** Every pattern with how many kept pairs have it. */
export function patternCounts(sql: SqlStorage): [string, number][] {
  return sql
    .exec<{ pattern: string; pairs: number }>("SELECT pattern, pairs FROM linkage_patterns")
    .toArray()
    .map((row) => [row.pattern, row.pairs]);
}

/** Dirty profiles after `after`, in order. */
export function dirtyAfter(sql: SqlStorage, after: string, limit: number): string[] {
  return sql
    .exec<{ profile_id: string }>(
      "SELECT profile_id FROM linkage_dirty WHERE profile_id > ? ORDER BY profile_id LIMIT ?",
      after,
      limit,
    )
    .toArray()
    .map((row) => row.profile_id);
}

/** Forgets up to `limit` dirty marks; answers how many went. */
export function forgetDirty(sql: SqlStorage, limit: number): number {
  return sql
    .exec("DELETE FROM linkage_dirty WHERE profile_id IN (SELECT profile_id FROM linkage_dirty LIMIT ?) RETURNING 1", limit)
    .toArray().length;
}
