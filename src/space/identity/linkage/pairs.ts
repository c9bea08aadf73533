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
  const gone = sql
    .exec<{ pattern: string }>(
      `DELETE FROM linkage_pairs WHERE profile_a IN (SELECT value FROM json_each(?1)) OR profile_b IN (SELECT value FROM json_each(?1))
       RETURNING pattern`,
      JSON.stringify(fresh),
    )
    .toArray()
    .map((row) => row.pattern);
  countPatterns(sql, gone, -1);
}

/**
 * Writes profiles' blocking keys anew. Answers by how much the number of profiles with a key
 * changed (a profile's first keys count one).
 */
export function writeKeys(sql: SqlStorage, keysOf: ReadonlyMap<string, readonly string[]>): number {
  if (keysOf.size === 0) return 0;
  const had = new Set(
    sql
      .exec<{ profile_id: string }>(
        "DELETE FROM linkage_keys WHERE profile_id IN (SELECT value FROM json_each(?)) RETURNING profile_id",
        JSON.stringify([...keysOf.keys()]),
      )
      .toArray()
      .map((row) => row.profile_id),
  );
  const rows = [...keysOf].flatMap(([profileId, keys]) => keys.map((key) => [key, profileId]));
  if (rows.length > 0) {
    sql.exec(
      "INSERT INTO linkage_keys (key, profile_id) SELECT k.value ->> 0, k.value ->> 1 FROM json_each(?) k WHERE true ON CONFLICT DO NOTHING",
      JSON.stringify(rows),
    );
  }
  let delta = 0;
  for (const [profileId, keys] of keysOf) delta += (keys.length > 0 ? 1 : 0) - (had.has(profileId) ? 1 : 0);
  return delta;
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
         SELECT k.key, k.profile_id AS p FROM json_each(?1) d CROSS JOIN linkage_keys k ON k.profile_id = d.value
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
  return sql
    .exec<{ profile_a: string; profile_b: string; pattern: string; meetings: number }>(
      "SELECT profile_a, profile_b, pattern, meetings FROM linkage_pairs WHERE (profile_a, profile_b) > (?, ?) ORDER BY profile_a, profile_b LIMIT ?",
      ...after,
      limit,
    )
    .toArray()
    .map((row) => ({ profileA: row.profile_a, profileB: row.profile_b, pattern: row.pattern, meetings: row.meetings }));
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
  sql.exec("DELETE FROM linkage_dirty WHERE profile_id IN (SELECT profile_id FROM linkage_dirty LIMIT ?)", limit);
  return sql.exec<{ n: number }>("SELECT changes() AS n").one().n;
}
