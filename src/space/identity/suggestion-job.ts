import { setTimer, setTimerOnce } from "../timers";
import { type Features, proposePair } from "./suggestions";

/**
 * The offline job that finds candidate pairs (DESIGN 3.5), run from the object's alarm in
 * slices, so that a space's requests are never held up for more than a few milliseconds: each
 * slice reads a bounded number of rows and hands the job's state to the next slice through its
 * timer. First it walks the traits (profiles sharing a name or a postal code), then the
 * profiles whose handles met in one event.
 */
export interface JobState {
  phase: "traits" | "meetings";
  /** Where the walk stopped: the last row read. */
  after: string[] | null;
  /** The trait group the last slice was still reading. */
  group: { trait: string; value: string; profiles: string[] } | null;
  startedAt: number;
  slices: number;
  /** The longest slice so far, by the stopwatch the alarm hands in. */
  maxSliceMs: number;
}

/** Rows one slice reads (measured by `npm run bench`: `suggestions_max_slice_ms`). */
export const SLICE_ROWS = 400;
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
  const state: JobState = { phase: "traits", after: null, group: null, startedAt: now, slices: 0, maxSliceMs: 0 };
  setTimer(sql, { kind: "suggestions.run", key: "", dueAt: now, payload: state });
}

/**
 * One slice of a run; the next is due at once, until the walk is done. `stopwatch` measures the
 * slice (wall time where the runtime lets it advance during work, as under `wrangler dev`).
 */
export function continueSuggestions(sql: SqlStorage, state: JobState, now: number, stopwatch: () => number): void {
  const started = stopwatch();
  const next = state.phase === "traits" ? traitsSlice(sql, state, now) : meetingsSlice(sql, state, now);
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

function traitsSlice(sql: SqlStorage, state: JobState, now: number): JobState | null {
  const [trait = "", value = "", profile = ""] = state.after ?? [];
  const rows = sql
    .exec<{ trait: string; value: string; profile_id: string }>(
      "SELECT trait, value, profile_id FROM profile_traits WHERE (trait, value, profile_id) > (?, ?, ?) ORDER BY trait, value, profile_id LIMIT ?",
      trait,
      value,
      profile,
      SLICE_ROWS,
    )
    .toArray();
  let group = state.group;
  for (const row of rows) {
    if (!group || group.trait !== row.trait || group.value !== row.value) {
      if (group) proposeGroup(sql, group.profiles, now);
      group = { trait: row.trait, value: row.value, profiles: [] };
    }
    if (group.profiles.length <= MAX_GROUP) group.profiles.push(row.profile_id);
  }
  const last = rows.at(-1);
  if (rows.length === SLICE_ROWS && last) {
    return { ...state, after: [last.trait, last.value, last.profile_id], group };
  }
  if (group) proposeGroup(sql, group.profiles, now);
  return { ...state, phase: "meetings", after: null, group: null };
}

function meetingsSlice(sql: SqlStorage, state: JobState, now: number): JobState | null {
  const [a = "", b = ""] = state.after ?? [];
  const rows = sql
    .exec<{ profile_a: string; profile_b: string; handle_a: string; handle_b: string }>(
      "SELECT profile_a, profile_b, handle_a, handle_b FROM co_occurrences WHERE (profile_a, profile_b) > (?, ?) ORDER BY profile_a, profile_b LIMIT ?",
      a,
      b,
      Math.ceil(SLICE_ROWS / 4),
    )
    .toArray();
  for (const row of rows) {
    const rootA = rootIdOf(sql, row.profile_a);
    const rootB = rootIdOf(sql, row.profile_b);
    if (!rootA || !rootB || rootA === rootB) continue;
    proposePair(
      sql,
      { profileA: rootA, profileB: rootB, handleA: row.handle_a, handleB: row.handle_b },
      featuresOf(sql, rootA, rootB),
      now,
    );
  }
  const last = rows.at(-1);
  return rows.length === Math.ceil(SLICE_ROWS / 4) && last ? { ...state, after: [last.profile_a, last.profile_b] } : null;
}

/** Profiles that share a trait value: every pair of their distinct roots, when the group is small enough to mean something. */
function proposeGroup(sql: SqlStorage, profiles: readonly string[], now: number): void {
  if (profiles.length < 2 || profiles.length > MAX_GROUP) return;
  const roots = [...new Set(profiles.map((profile) => rootIdOf(sql, profile)).filter((root) => root !== null))];
  for (let i = 0; i < roots.length; i++) {
    for (let j = i + 1; j < roots.length; j++) {
      const [rootA = "", rootB = ""] = [roots[i], roots[j]];
      const handleA = firstHandleOf(sql, rootA);
      const handleB = firstHandleOf(sql, rootB);
      if (!handleA || !handleB) continue;
      proposePair(sql, { profileA: rootA, profileB: rootB, handleA, handleB }, featuresOf(sql, rootA, rootB), now);
    }
  }
}

function rootIdOf(sql: SqlStorage, profileId: string): string | null {
  return (
    sql.exec<{ root_id: string }>("SELECT root_id FROM profiles WHERE profile_id = ?", profileId).toArray()[0]?.root_id ?? null
  );
}

function firstHandleOf(sql: SqlStorage, rootId: string): string | null {
  return (
    sql
      .exec<{ handle_id: string }>(
        "SELECT h.handle_id FROM profiles p JOIN handles h ON h.profile_id = p.profile_id WHERE p.root_id = ? AND h.status = 'active' ORDER BY h.handle_id LIMIT 1",
        rootId,
      )
      .toArray()[0]?.handle_id ?? null
  );
}

/** What two root profiles share, over every profile merged into each. */
export function featuresOf(sql: SqlStorage, rootA: string, rootB: string): Features {
  const traits = (root: string) =>
    sql
      .exec<{ trait: string; value: string }>(
        "SELECT t.trait, t.value FROM profiles p JOIN profile_traits t ON t.profile_id = p.profile_id WHERE p.root_id = ?",
        root,
      )
      .toArray();
  const ofA = traits(rootA);
  const ofB = new Set(traits(rootB).map((row) => `${row.trait}\n${row.value}`));
  const shared = (trait: string) => ofA.some((row) => row.trait === trait && ofB.has(`${row.trait}\n${row.value}`));
  const members = (root: string) =>
    sql
      .exec<{ profile_id: string }>("SELECT profile_id FROM profiles WHERE root_id = ?", root)
      .toArray()
      .map((row) => row.profile_id);
  let coOccurrences = 0;
  for (const a of members(rootA)) {
    for (const b of members(rootB)) {
      const [first, second] = a < b ? [a, b] : [b, a];
      coOccurrences +=
        sql
          .exec<{ count: number }>("SELECT count FROM co_occurrences WHERE profile_a = ? AND profile_b = ?", first, second)
          .toArray()[0]?.count ?? 0;
    }
  }
  return { sameName: shared("name"), samePostalCode: shared("postal_code"), coOccurrences };
}
