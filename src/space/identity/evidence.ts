import { type Trait, type TraitSet, VALUES_PER_TRAIT } from "./linkage/traits";

/**
 * What suggestions are scored from (DESIGN 3.5): traits that system events carry in their
 * `attributes` (`linkage/traits.ts`), and profiles whose handles met in one event.
 */

/**
 * Notes an event's traits for its profile, at the event's memory time: a new value is added, a
 * value given again moves to that time if it is later; a change is appended to `trait_changes`
 * for the suggestions job unless every value was the latest already, so a CRM sending the same
 * record again costs no comparison. The latest value still moves to the later time (a second
 * statement), so that a value given between the two times, arriving after both, stays behind it.
 */
export function noteTraits(sql: SqlStorage, profileId: string, traits: readonly [Trait, string][], notedAt: number): void {
  if (traits.length === 0) return;
  const changed = sql
    .exec(
      `INSERT INTO profile_traits (profile_id, trait, value, noted_at)
       SELECT ?1, t.value ->> 0, t.value ->> 1, ?2 FROM json_each(?3) t WHERE true
       ON CONFLICT (profile_id, trait, value) DO UPDATE SET noted_at = excluded.noted_at
       WHERE excluded.noted_at > profile_traits.noted_at AND EXISTS (
         SELECT 1 FROM profile_traits o WHERE o.profile_id = profile_traits.profile_id AND o.trait = profile_traits.trait
           AND (o.noted_at > profile_traits.noted_at OR (o.noted_at = profile_traits.noted_at AND o.seq > profile_traits.seq)))
       RETURNING seq`,
      profileId,
      notedAt,
      JSON.stringify(traits),
    )
    .toArray().length;
  if (changed > 0) sql.exec("INSERT INTO trait_changes (profile_id) VALUES (?)", profileId);
  if (changed < traits.length) {
    sql.exec(
      `UPDATE profile_traits SET noted_at = ?2 WHERE profile_id = ?1 AND noted_at < ?2
         AND (trait, value) IN (SELECT t.value ->> 0, t.value ->> 1 FROM json_each(?3) t)`,
      profileId,
      notedAt,
      JSON.stringify(traits),
    );
  }
}

/**
 * Profiles' traits as comparisons read them, in the order of `profileIds`: per trait the latest
 * value first, then the alternatives most recently given, `VALUES_PER_TRAIT` at most. (By place,
 * not in a map keyed by profile ids: every new string used as a map key joins the isolate's string
 * table, whose growth pauses the job: docs/performance.md.)
 */
export function readTraits(sql: SqlStorage, profileIds: readonly string[]): TraitSet[] {
  const out: TraitSet[] = profileIds.map(() => ({}));
  if (profileIds.length === 0) return out;
  const rows = sql.exec<{ i: number; trait: string; value: string }>(
    `SELECT p.key AS i, t.trait, t.value FROM json_each(?) p CROSS JOIN profile_traits t ON t.profile_id = p.value
     ORDER BY p.key, t.trait, t.noted_at DESC, t.seq DESC`,
    JSON.stringify(profileIds),
  );
  for (const row of rows) {
    const set = out[row.i] as TraitSet;
    const values = set[row.trait as Trait] ?? [];
    if (values.length < VALUES_PER_TRAIT) values.push(row.value);
    set[row.trait as Trait] = values;
  }
  return out;
}

/**
 * The profiles whose traits changed after `after` (a `trait_changes` seq), up to `through`, read
 * from `limit` rows at most, each once in the order of its first change; `last` is the last row read.
 */
export function traitChangesAfter(
  sql: SqlStorage,
  after: number,
  through: number,
  limit: number,
): { profiles: string[]; last: number | null } {
  const rows = sql
    .exec<{ profile_id: string; last: number }>(
      `WITH read AS (SELECT seq, profile_id FROM trait_changes WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?)
       SELECT profile_id, (SELECT max(seq) FROM read) AS last FROM read GROUP BY profile_id ORDER BY min(seq)`,
      after,
      through,
      limit,
    )
    .toArray();
  return { profiles: rows.map((row) => row.profile_id), last: rows[0]?.last ?? null };
}

/** Forgets the changes a run has read (`seq` up to `through`). */
export function forgetTraitChanges(sql: SqlStorage, after: number, through: number): void {
  sql.exec("DELETE FROM trait_changes WHERE seq > ? AND seq <= ?", after, through);
}

/** The last change noted so far: a run reads the changes up to it, later ones wait for the next run. */
export function lastTraitChange(sql: SqlStorage): number {
  return sql.exec<{ seq: number | null }>("SELECT max(seq) AS seq FROM trait_changes").one().seq ?? 0;
}

/**
 * A random sample of profiles with traits, the same for the same table (the seqs drawn from
 * `rand` pick the trait row at or after each, so a profile with more values is a little likelier).
 */
export function sampleProfiles(sql: SqlStorage, count: number, rand: () => number): string[] {
  const last = sql.exec<{ seq: number | null }>("SELECT max(seq) AS seq FROM profile_traits").one().seq ?? 0;
  if (last === 0) return [];
  const seqs = Array.from({ length: count }, () => 1 + Math.floor(rand() * last));
  // Each profile once, in the order first drawn.
  return sql
    .exec<{ profile_id: string }>(
      `SELECT profile_id FROM (
         SELECT s.key AS i, (SELECT profile_id FROM profile_traits WHERE seq >= s.value ORDER BY seq LIMIT 1) AS profile_id FROM json_each(?) s
       ) WHERE profile_id IS NOT NULL GROUP BY profile_id ORDER BY min(i)`,
      JSON.stringify(seqs),
    )
    .toArray()
    .map((row) => row.profile_id);
}

/** Two profiles' handles met (in `count` events): the pair in a fixed order, its first handles kept. */
export interface CoOccurrence {
  profileA: string;
  profileB: string;
  handleA: string;
  handleB: string;
  count: number;
}

/** Two profiles' handles met (in `count` events): the pair in a fixed order, its first handles kept. */
export function coOccurrence(
  one: { profileId: string; handleId: string },
  other: { profileId: string; handleId: string },
): CoOccurrence {
  const [a, b] = one.profileId < other.profileId ? [one, other] : [other, one];
  return { profileA: a.profileId, profileB: b.profileId, handleA: a.handleId, handleB: b.handleId, count: 1 };
}

/** Adds meetings to their pairs' counts, in one statement. */
export function noteCoOccurrences(sql: SqlStorage, meetings: readonly CoOccurrence[]): void {
  if (meetings.length === 0) return;
  sql.exec(
    `INSERT INTO co_occurrences (profile_a, profile_b, handle_a, handle_b, count)
     SELECT m.value ->> 0, m.value ->> 1, m.value ->> 2, m.value ->> 3, m.value ->> 4 FROM json_each(?) m WHERE true
     ON CONFLICT (profile_a, profile_b) DO UPDATE SET count = count + excluded.count`,
    JSON.stringify(meetings.map((m) => [m.profileA, m.profileB, m.handleA, m.handleB, m.count])),
  );
}

/** Meetings after the pair `after`, in pair order, `limit` at most. */
export function meetingsAfter(
  sql: SqlStorage,
  after: [string, string],
  limit: number,
): { profileA: string; profileB: string; count: number }[] {
  return sql
    .exec<{ profile_a: string; profile_b: string; count: number }>(
      "SELECT profile_a, profile_b, count FROM co_occurrences WHERE (profile_a, profile_b) > (?, ?) ORDER BY profile_a, profile_b LIMIT ?",
      ...after,
      limit,
    )
    .toArray()
    .map((row) => ({ profileA: row.profile_a, profileB: row.profile_b, count: row.count }));
}
