import type { Suggestion } from "../../contract/identity";
import { setTimer, setTimerOnce } from "../timers";
import { firstActiveHandles } from "./handle-store";
import { type Candidate, recordCandidates } from "./suggestions";

/**
 * The offline job that finds candidate pairs (DESIGN 3.5), run from the object's alarm in
 * slices, so that a space's requests are never held up for more than a few milliseconds: each
 * slice reads a bounded number of rows and hands the job's state to the next slice through its
 * timer. First it walks the names (profiles sharing one), then the profiles whose handles met
 * in one event. Postal codes are not walked: a shared postal code alone (0.3) or with a meeting
 * reaches the threshold only through a name or a meeting, and both walks weigh it for each pair.
 */
export interface JobState {
  phase: "names" | "meetings";
  /** Where the walk stopped: the last row read. */
  after: string[] | null;
  startedAt: number;
  slices: number;
  /** The longest slice so far, by the stopwatch the alarm hands in. */
  maxSliceMs: number;
}

/** Evidence rows one slice covers (measured by `npm run bench`: `suggestions_max_slice_ms`). */
export const SLICE_ROWS = 100;
/** A value shared by more profiles than this (a common name) is no evidence. */
export const MAX_GROUP = 20;
/** How long after a write the job waits, so that a burst of writes makes one run. */
export const DEBOUNCE_MS = 30_000;

/** Asks for a run after writes that may have brought evidence. */
export function requestSuggestions(sql: SqlStorage, now: number): void {
  setTimerOnce(sql, { kind: "suggestions.debounce", key: "", dueAt: now + DEBOUNCE_MS, payload: null });
}

/** The debounce fired: start a run, or wait for the one under way to end. */
export function startSuggestions(sql: SqlStorage, now: number): void {
  const running = sql.exec("SELECT 1 FROM timers WHERE kind = 'suggestions.run'").toArray().length > 0;
  if (running) {
    requestSuggestions(sql, now);
    return;
  }
  const state: JobState = { phase: "names", after: null, startedAt: now, slices: 0, maxSliceMs: 0 };
  setTimer(sql, { kind: "suggestions.run", key: "", dueAt: now, payload: state });
}

/**
 * One slice of a run; the next is due at once, until the walk is done. `stopwatch` measures the
 * slice (wall time where the runtime lets it advance during work, as under `wrangler dev`).
 */
export function continueSuggestions(sql: SqlStorage, state: JobState, now: number, stopwatch: () => number): void {
  const started = stopwatch();
  const next = state.phase === "names" ? namesSlice(sql, state, now) : meetingsSlice(sql, state, now);
  const slices = state.slices + 1;
  const maxSliceMs = Math.max(state.maxSliceMs, stopwatch() - started);
  if (next) {
    setTimer(sql, { kind: "suggestions.run", key: "", dueAt: now, payload: { ...next, slices, maxSliceMs } });
    return;
  }
  sql.exec(
    `INSERT INTO job_runs (job, started_at, finished_at, slices, max_slice_ms) VALUES ('suggestions', ?, ?, ?, ?)
     ON CONFLICT (job) DO UPDATE SET started_at = excluded.started_at, finished_at = excluded.finished_at, slices = excluded.slices, max_slice_ms = excluded.max_slice_ms`,
    state.startedAt,
    now,
    slices,
    maxSliceMs,
  );
}

export interface JobStatus {
  status: "idle" | "waiting" | "running";
  last_run: { started_at: string; finished_at: string; slices: number; max_slice_ms: number } | null;
}

/** Whether a run waits or runs, and how the last one went. */
export function suggestionJobStatus(sql: SqlStorage): JobStatus {
  const kinds = new Set(
    sql
      .exec<{ kind: string }>("SELECT kind FROM timers WHERE kind IN ('suggestions.debounce', 'suggestions.run')")
      .toArray()
      .map((row) => row.kind),
  );
  const last = sql
    .exec<{ started_at: number; finished_at: number; slices: number; max_slice_ms: number }>(
      "SELECT started_at, finished_at, slices, max_slice_ms FROM job_runs WHERE job = 'suggestions'",
    )
    .toArray()[0];
  return {
    status: kinds.has("suggestions.run") ? "running" : kinds.has("suggestions.debounce") ? "waiting" : "idle",
    last_run: last
      ? {
          started_at: new Date(last.started_at).toISOString(),
          finished_at: new Date(last.finished_at).toISOString(),
          slices: last.slices,
          max_slice_ms: Math.round(last.max_slice_ms * 100) / 100,
        }
      : null,
  };
}

/**
 * What each candidate pair of roots shares, over every profile merged into each, with the
 * suggestion it already has: one statement for a whole slice of pairs (`pairs(ra, rb)`, ra < rb).
 * Their handles are read only for the few pairs that become a suggestion.
 * `CROSS JOIN` fixes SQLite's join order: from a root's few profiles to their traits, never
 * from every profile with a trait.
 */
const shared = (trait: "name" | "postal_code") => `
    EXISTS (SELECT 1 FROM profiles px CROSS JOIN profile_traits x CROSS JOIN profile_traits y CROSS JOIN profiles py
      WHERE px.root_id = pairs.ra AND x.profile_id = px.profile_id AND x.trait = '${trait}'
        AND y.trait = x.trait AND y.value = x.value AND py.profile_id = y.profile_id AND py.root_id = pairs.rb)`;

/** `sameName`: whether a pair shares a name, in SQL (the walk of names knows it does). */
const candidatesOf = (sameName: string) => `
  SELECT pairs.ra, pairs.rb, ${sameName} AS same_name, ${shared("postal_code")} AS same_postal_code,
    (SELECT coalesce(sum(c.count), 0) FROM profiles pa JOIN profiles pb ON pb.root_id = pairs.rb
      JOIN co_occurrences c ON c.profile_a = min(pa.profile_id, pb.profile_id) AND c.profile_b = max(pa.profile_id, pb.profile_id)
      WHERE pa.root_id = pairs.ra) AS co_occurrences,
    s.suggestion_id, s.status, s.score, s.same_name AS was_same_name, s.same_postal_code AS was_same_postal_code,
    s.co_occurrences AS was_co_occurrences
  FROM pairs LEFT JOIN suggestions s ON s.profile_a = pairs.ra AND s.profile_b = pairs.rb`;

/** The candidates among roots sharing a name within a range of names; a name shared too widely is left out. */
const BY_NAME = `
  WITH members AS (
    SELECT t.value, p.root_id AS root FROM profile_traits t JOIN profiles p ON p.profile_id = t.profile_id
    WHERE t.trait = 'name' AND t.value > ?1 AND t.value <= ?2
  ),
  kept AS (
    SELECT m.* FROM members m JOIN (
      SELECT value FROM members GROUP BY value HAVING count(DISTINCT root) BETWEEN 2 AND ?3
    ) g ON g.value = m.value
  ),
  pairs AS (SELECT DISTINCT a.root AS ra, b.root AS rb FROM kept a JOIN kept b ON a.value = b.value AND a.root < b.root)
  ${candidatesOf("1")}`;

/** The candidates among roots whose profiles met in a range of `co_occurrences` rows. */
const BY_MEETING = `
  WITH met AS (
    SELECT pa.root_id AS x, pb.root_id AS y FROM co_occurrences c
    JOIN profiles pa ON pa.profile_id = c.profile_a JOIN profiles pb ON pb.profile_id = c.profile_b
    WHERE (c.profile_a, c.profile_b) > (?1, ?2) AND (c.profile_a, c.profile_b) <= (?3, ?4)
  ),
  pairs AS (SELECT DISTINCT min(x, y) AS ra, max(x, y) AS rb FROM met WHERE x <> y)
  ${candidatesOf(shared("name"))}`;

interface CandidateRow {
  ra: string;
  rb: string;
  same_name: number;
  same_postal_code: number;
  co_occurrences: number;
  suggestion_id: string | null;
  status: string | null;
  score: number | null;
  was_same_name: number | null;
  was_same_postal_code: number | null;
  was_co_occurrences: number | null;
  [column: string]: SqlStorageValue;
}

function recordAll(sql: SqlStorage, query: string, bindings: SqlStorageValue[], now: number): void {
  const candidates = sql
    .exec<CandidateRow>(query, ...bindings)
    .toArray()
    .map(
      (row): Candidate => ({
        profileA: row.ra,
        profileB: row.rb,
        features: {
          sameName: row.same_name === 1,
          samePostalCode: row.same_postal_code === 1,
          coOccurrences: row.co_occurrences,
        },
        existing:
          row.suggestion_id === null
            ? null
            : {
                suggestionId: row.suggestion_id,
                status: row.status as Suggestion["status"],
                score: row.score ?? 0,
                features: {
                  sameName: row.was_same_name === 1,
                  samePostalCode: row.was_same_postal_code === 1,
                  coOccurrences: row.was_co_occurrences ?? 0,
                },
              },
      }),
    );
  recordCandidates(sql, candidates, (roots) => firstActiveHandles(sql, roots), now);
}

/** The key `SLICE_ROWS` rows past `after` (where this slice ends), or null when the rest fits in it. */
function sliceEnd(sql: SqlStorage, query: string, after: SqlStorageValue[]): string[] | null {
  const row = sql.exec<Record<string, string>>(query, ...after, SLICE_ROWS).toArray()[0];
  return row ? Object.values(row) : null;
}

function namesSlice(sql: SqlStorage, state: JobState, now: number): JobState | null {
  const after = state.after ?? [""];
  const end = sliceEnd(
    sql,
    "SELECT value FROM profile_traits WHERE trait = 'name' AND value > ? ORDER BY value, profile_id LIMIT 1 OFFSET ?",
    after,
  );
  recordAll(sql, BY_NAME, [...after, ...(end ?? ["\uffff"]), MAX_GROUP], now);
  return end ? { ...state, after: end } : { ...state, phase: "meetings", after: null };
}

function meetingsSlice(sql: SqlStorage, state: JobState, now: number): JobState | null {
  const after = state.after ?? ["", ""];
  const end = sliceEnd(
    sql,
    "SELECT profile_a, profile_b FROM co_occurrences WHERE (profile_a, profile_b) > (?, ?) ORDER BY profile_a, profile_b LIMIT 1 OFFSET ?",
    after,
  );
  recordAll(sql, BY_MEETING, [...after, ...(end ?? ["\uffff", ""])], now);
  return end ? { ...state, after: end } : null;
}
