import { queueProfile } from "../memory/compiler";
import { replicatedConfig } from "../replica";
import { catchUpIndex } from "../search/backlog";
import { setTimer, setTimerOnce } from "../timers";
import { eraseControlsBefore } from "./conversation-erasure";
import { STEP } from "./erasure-steps";
import { SLICE_BUDGET_MS, SLICE_STEPS } from "./erasures";
import {
  deleteSearchRows,
  dropSession,
  eraseSessionEvents,
  foldInboxes,
  purgeSearchStep,
  recompileSession,
} from "./session-erasure";

/**
 * Retention (config `retention_days`, docs/api/privacy.md "Retention"): once a day, the content of
 * events older than the cutoff is erased by the code that erases a forgotten subject's
 * (`session-erasure.ts`), in slices like every job: a session with no newer event goes with
 * everything compiled from it; one that has newer events keeps them and is compiled again from
 * them; its profile's memory is compiled again whole (what was derived only from erased events
 * goes with them). Then the items that ended or handed over sessions before the cutoff
 * (tombstoned: their `reason` is content), the search index's message rows older than the
 * cutoff, and the index's segments merged so that their words leave it. Tombstones stay, and so
 * do aggregate counts (context use, model calls, linkage patterns) and identity.
 */
export interface RetentionJob {
  phase: "sessions" | "controls" | "search" | "purge";
  /** `sessions`: the last session id looked at; `search`: the last rowid. */
  after: string;
  /** The session whose events are being erased, if one is under way. */
  current: { sessionId: string; profileId: string; conversationId: string | null } | null;
  cutoff: number;
  startedAt: number;
  slices: number;
  events: number;
}

export const RETENTION_EVERY_MS = 24 * 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;
/** Sessions looked at per step for one that started before the cutoff, and search rows. */
const SESSIONS_LOOKED_AT = 500;
const SEARCH_ROWS_LOOKED_AT = 500;

/** A space with `retention_days` has a run due: at once when none is set yet (a config push calls this). */
export function scheduleRetention(sql: SqlStorage, now: number): void {
  if (replicatedConfig(sql).retention_days === undefined) return;
  setTimerOnce(sql, { kind: "retention.run", key: "", dueAt: now, payload: null });
}

/** One slice of the daily run (a new run when `job` is null). Returns the profiles whose events it erased. */
export function continueRetention(sql: SqlStorage, job: RetentionJob | null, now: number, stopwatch: () => number): string[] {
  const days = replicatedConfig(sql).retention_days;
  if (days === undefined) return [];
  const started = stopwatch();
  const touched = new Set<string>();
  // A new run first indexes the messages not indexed yet: its search phase then meets every old one.
  if (job === null) catchUpIndex(sql, null);
  let next: RetentionJob | null = job ?? {
    phase: "sessions",
    after: "",
    current: null,
    cutoff: now - days * DAY_MS,
    startedAt: now,
    slices: 0,
    events: 0,
  };
  const slices = next.slices + 1;
  foldInboxes(sql);
  for (let steps = 0; next && steps < SLICE_STEPS && (steps === 0 || stopwatch() - started < SLICE_BUDGET_MS); steps++) {
    next = step(sql, next, now, touched);
  }
  if (next) {
    setTimer(sql, { kind: "retention.run", key: "", dueAt: now, payload: { ...next, slices } });
  } else {
    const run = job ?? { startedAt: now };
    sql.exec(
      `INSERT INTO job_runs (job, started_at, finished_at, slices, max_slice_ms) VALUES ('retention', ?, ?, ?, 0)
       ON CONFLICT (job) DO UPDATE SET started_at = excluded.started_at, finished_at = excluded.finished_at, slices = excluded.slices`,
      run.startedAt,
      now,
      slices,
    );
    setTimer(sql, { kind: "retention.run", key: "", dueAt: run.startedAt + RETENTION_EVERY_MS, payload: null });
  }
  return [...touched];
}

function step(sql: SqlStorage, job: RetentionJob, now: number, touched: Set<string>): RetentionJob | null {
  if (job.phase === "controls") {
    const erased = eraseControlsBefore(sql, job.cutoff, STEP.items);
    const events = job.events + erased;
    return erased < STEP.items ? { ...job, events, phase: "search", after: "0" } : { ...job, events };
  }
  if (job.phase === "search") return searchStep(sql, job);
  if (job.phase === "purge") return purgeSearchStep(sql, job.after === "") ? { ...job, after: "1" } : null;
  const { current } = job;
  if (current) {
    const erased = eraseSessionEvents(sql, current.sessionId, STEP.events, job.cutoff);
    const events = job.events + erased.events;
    if (erased.more) return { ...job, events };
    touched.add(current.profileId);
    const left = sql.exec("SELECT 1 FROM session_events WHERE session_id = ? LIMIT 1", current.sessionId).toArray().length > 0;
    if (left) recompileSession(sql, current, now);
    else if (!dropSession(sql, current, false, STEP.search).done) return { ...job, events };
    queueProfile(sql, [current.profileId], now);
    return { ...job, events, current: null };
  }
  const window = sql
    .exec<{ session_id: string; profile_id: string; conversation_id: string | null; started_at: number }>(
      "SELECT session_id, profile_id, conversation_id, started_at FROM sessions WHERE session_id > ? ORDER BY session_id LIMIT ?",
      job.after,
      SESSIONS_LOOKED_AT,
    )
    .toArray();
  const old = window.find((session) => session.started_at < job.cutoff);
  if (old) {
    const session = { sessionId: old.session_id, profileId: old.profile_id, conversationId: old.conversation_id };
    return { ...job, after: old.session_id, current: session };
  }
  const last = window.at(-1);
  return last ? { ...job, after: last.session_id } : { ...job, phase: "controls", after: "" };
}

/** Message and transcript rows older than the cutoff, by rowid ranges (they carry no session: they go by time). */
function searchStep(sql: SqlStorage, job: RetentionJob): RetentionJob | null {
  const after = Number(job.after);
  const rows = sql
    .exec<{ rowid: number; kind: string; occurred_at: number }>(
      "SELECT rowid, kind, occurred_at FROM search_index WHERE rowid > ? ORDER BY rowid LIMIT ?",
      after,
      SEARCH_ROWS_LOOKED_AT,
    )
    .toArray();
  const last = rows.at(-1);
  if (!last) return { ...job, phase: "purge", after: "" };
  deleteSearchRows(
    sql,
    rows
      .filter((row) => (row.kind === "message" || row.kind === "transcript") && row.occurred_at < job.cutoff)
      .map((row) => row.rowid),
  );
  return { ...job, after: String(last.rowid) };
}
