import { setTimer } from "../timers";
import type { Extractor } from "./extractor";
import type { MemoryEvent } from "./memory-event";
import type { ModelDigest, SummaryOutcome } from "./model-summarizer";
import { sessionEvents } from "./session-events";
import { findSession, type SessionRecord } from "./sessions";
import type { Summarizer } from "./summarizer";

/**
 * Model digests of sessions, and the queue of closed sessions waiting for the model (docs/api/memory.md
 * "Model summaries"). Owns `model_summaries`, `model_queue` and `model_calls`. The compile never
 * waits for the model: it compiles with the offline parts and queues the session; once the model's
 * digest is stored the session is compiled again, and compiles with it while its events stay the same.
 */

/** A changed session is asked again at most this long after its last call. */
export const MODEL_RETRY_MS = 60_000;
/** How many model calls a space has in flight at most. */
export const MODEL_CONCURRENCY = 2;
/** Model calls per space and UTC day when `summarizer_daily_limit` is not set. */
export const DEFAULT_MODEL_DAILY_LIMIT = 1_000;
const CALLS_KEPT_DAYS = 90;
const DAY_MS = 86_400_000;

/** A session's version: its event count and the largest `seq` of its events. */
export interface SessionVersion {
  events: number;
  lastSeq: number;
}

export const versionOf = (events: readonly MemoryEvent[]): SessionVersion => ({
  events: events.length,
  lastSeq: events.reduce((last, event) => Math.max(last, event.seq), 0),
});

export type SummaryRow = {
  tried_events: number;
  tried_seq: number;
  tried_at: number;
  events: number | null;
  last_seq: number | null;
  digest: string | null;
};

/** Sessions' stored model rows, by session, in one statement (a compile slice reads its sessions' at once). */
export function modelSummariesOf(sql: SqlStorage, sessionIds: readonly string[]): Map<string, SummaryRow> {
  if (sessionIds.length === 0) return new Map();
  const rows = sql.exec<SummaryRow & { session_id: string }>(
    "SELECT m.* FROM json_each(?) j CROSS JOIN model_summaries m WHERE m.session_id = j.value",
    JSON.stringify(sessionIds),
  );
  return new Map([...rows].map((row) => [row.session_id, row]));
}

/**
 * The parts a session compiles with (`row`: its stored model row, if any): with its stored model digest (its summary, highlights and
 * facts) when that digest was made from exactly these events, else `parts` as given. A closed
 * session whose version the model was not asked about yet is queued for it when `queue` (a binding
 * and a model are there), due at once or a minute after its last call.
 */
export function partsWithModel<P extends { summarizer: Summarizer; extractor: Extractor }>(
  sql: SqlStorage,
  session: SessionRecord,
  events: readonly MemoryEvent[],
  parts: P,
  options: { queue: boolean; now: number },
  row: SummaryRow | undefined,
): P {
  const version = versionOf(events);
  if (row?.digest != null && row.events === version.events && row.last_seq === version.lastSeq) {
    const digest = JSON.parse(row.digest) as ModelDigest;
    return { ...parts, summarizer: digestSummarizer(digest), extractor: withFacts(parts.extractor, digest.facts) };
  }
  const asked = row !== undefined && row.tried_events === version.events && row.tried_seq === version.lastSeq;
  if (options.queue && session.status === "closed" && version.events > 0 && !asked) {
    const dueAt = Math.max(options.now, row === undefined ? 0 : row.tried_at + MODEL_RETRY_MS);
    sql.exec(
      "INSERT INTO model_queue (session_id, profile_id, due_at) VALUES (?, ?, ?) ON CONFLICT (session_id) DO NOTHING",
      session.sessionId,
      session.profileId,
      dueAt,
    );
    armModelStep(sql, options.now, null);
  }
  return parts;
}

/** The stored digest as the summarizer's answer, whatever the events (they are the ones it was made from). */
function digestSummarizer(digest: ModelDigest): Summarizer {
  const { summary, requested, resolution, highlights } = digest;
  const episode = { summary, requested, resolution, highlights };
  return { summarize: () => episode };
}

/** The extractor's facts of an event, and the model's facts of it under keys the extractor did not find there. */
function withFacts(extractor: Extractor, facts: ModelDigest["facts"]): Extractor {
  return {
    extract: (...args) => {
      const found = extractor.extract(...args);
      const keys = new Set(found.map((fact) => fact.key));
      const stated = facts.filter((fact) => fact.eventId === args[0].itemId && !keys.has(fact.key));
      return [...found, ...stated.map(({ key, value }) => ({ key, value }))];
    },
  };
}

/** One session to ask the model about: its events as they were read, and their version. */
export interface SummaryJob {
  sessionId: string;
  profileId: string;
  version: SessionVersion;
  events: MemoryEvent[];
}

/**
 * Takes the due sessions the model is asked about now, at most `slots` (calls the space may start)
 * and what is left of the day's limit, and notes each version as asked (a version is asked once,
 * even when its call is lost). When it leaves slots free, the step is due again at the next
 * queued session; otherwise the calls in flight set it when they settle.
 */
export function takeSummaries(sql: SqlStorage, now: number, limits: { slots: number; dailyLimit: number }): SummaryJob[] {
  if (limits.slots <= 0) return [];
  const room = Math.min(limits.slots, limits.dailyLimit - callsOn(sql, now));
  const due = sql
    .exec<{ session_id: string; profile_id: string }>(
      "SELECT session_id, profile_id FROM model_queue WHERE due_at <= ? ORDER BY due_at, session_id LIMIT ?",
      now,
      Math.max(room, 0),
    )
    .toArray();
  const jobs: SummaryJob[] = [];
  for (const { session_id: sessionId, profile_id: profileId } of due) {
    sql.exec("DELETE FROM model_queue WHERE session_id = ?", sessionId);
    const session = findSession(sql, sessionId);
    if (session === null || session.status !== "closed") continue;
    const events = sessionEvents(sql, sessionId);
    const version = versionOf(events);
    sql.exec(
      `INSERT INTO model_summaries (session_id, tried_events, tried_seq, tried_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (session_id) DO UPDATE SET tried_events = excluded.tried_events, tried_seq = excluded.tried_seq,
         tried_at = excluded.tried_at`,
      sessionId,
      version.events,
      version.lastSeq,
      now,
    );
    jobs.push({ sessionId, profileId, version, events });
  }
  count(sql, now, "calls", jobs.length);
  if (jobs.length < limits.slots) armModelStep(sql, now, limits.dailyLimit);
  return jobs;
}

/**
 * What a call came to: the digest, stored with the version it was made from (unless the session
 * was asked about again since), and its outcome counted. Returns whether the session is to be
 * compiled again. The step is due again at the next queued session.
 */
export function storeSummary(
  sql: SqlStorage,
  job: SummaryJob,
  outcome: SummaryOutcome,
  model: string,
  now: number,
  dailyLimit: number,
): boolean {
  count(sql, now, outcome.ok ? "ok" : outcome.reason, 1);
  sql.exec("DELETE FROM model_calls WHERE day < ?", dayOf(now - CALLS_KEPT_DAYS * DAY_MS));
  let stored = false;
  if (outcome.ok) {
    stored =
      sql.exec(
        `UPDATE model_summaries SET events = ?2, last_seq = ?3, model = ?4, digest = ?5
         WHERE session_id = ?1 AND tried_events = ?2 AND tried_seq = ?3`,
        job.sessionId,
        job.version.events,
        job.version.lastSeq,
        model,
        JSON.stringify(outcome.digest),
      ).rowsWritten > 0;
  }
  armModelStep(sql, now, dailyLimit);
  return stored;
}

/** Calls and outcomes of a UTC day (`YYYY-MM-DD`), by outcome. */
export function modelCalls(sql: SqlStorage, day: string): Record<string, number> {
  const rows = sql
    .exec<{ outcome: string; calls: number }>("SELECT outcome, calls FROM model_calls WHERE day = ?", day)
    .toArray();
  return Object.fromEntries(rows.map((row) => [row.outcome, row.calls]));
}

/**
 * The step is due at the earliest queued session (not before `now`); once the day's limit is
 * spent (when known), not before the next UTC day.
 */
function armModelStep(sql: SqlStorage, now: number, dailyLimit: number | null): void {
  const next = sql.exec<{ due_at: number | null }>("SELECT min(due_at) AS due_at FROM model_queue").one().due_at;
  if (next === null) return;
  const spent = dailyLimit !== null && callsOn(sql, now) >= dailyLimit;
  const dueAt = Math.max(next, now, spent ? Math.floor(now / DAY_MS + 1) * DAY_MS : 0);
  setTimer(sql, { kind: "memory.summarize", key: "", dueAt, payload: null });
}

function callsOn(sql: SqlStorage, now: number): number {
  return (
    sql.exec<{ calls: number }>("SELECT calls FROM model_calls WHERE day = ? AND outcome = 'calls'", dayOf(now)).toArray()[0]
      ?.calls ?? 0
  );
}

function count(sql: SqlStorage, now: number, outcome: string, calls: number): void {
  if (calls === 0) return;
  sql.exec(
    `INSERT INTO model_calls (day, outcome, calls) VALUES (?, ?, ?)
     ON CONFLICT (day, outcome) DO UPDATE SET calls = calls + excluded.calls`,
    dayOf(now),
    outcome,
    calls,
  );
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
