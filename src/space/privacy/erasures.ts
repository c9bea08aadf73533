import type { ForgetInput } from "../../contract/privacy";
import { Problem } from "../../http/problem";
import { uuidv7 } from "../../ids";
import { findHandle } from "../identity/handle-store";
import { normalizeHandle } from "../identity/handles";
import { membersOf, rootOf } from "../identity/profiles";
import { catchUpIndex } from "../search/backlog";
import { idToken } from "../search/tokens";
import { setTimer, type Timer } from "../timers";
import { cutSubject, type ErasedFile, forgetEvidence } from "./identity-cut";
import { erasedHandleKeys, withoutHandles } from "./mentions";
import { type ErasureCounts, noCounts, type Receipt } from "./receipts";
import {
  deleteSearchRows,
  dropSession,
  eraseSessionEvents,
  foldInboxes,
  purgeSearchStep,
  searchRowids,
  tombstoneItems,
} from "./session-erasure";

/**
 * `POST /v1/forget` (docs/api/privacy.md): the subject is cut loose in the request's transaction
 * (`identity-cut.ts`), then erased in slices from the object's alarm, like the suggestions job:
 * each slice runs steps of bounded size while its stopwatch allows and hands its state to the
 * next through its timer (`forget.run`, keyed by the receipt), so a restart resumes where the last
 * committed slice stopped. Phases:
 *   1. `sessions`: each session of the subject's profiles, its events tombstoned a chunk at a
 *      time, then the session with everything compiled from it; `memory`: its memory entries;
 *   2. `items`: every item up to the request, by `seq`: the subject's other items (identify,
 *      verify, feedback) tombstoned, other subjects' items that name its handles scrubbed;
 *   3. `search`: the rows of both search tables under the subject's profile tokens; `purge`:
 *      the tables' segments merged, so that no deleted row's words stay in the index;
 *   4. `owners`, `served`: objects it owned and etags it was served, by rowid ranges;
 *   5. `tidy`: sightings, kept answers naming it, timers, evidence a job wrote meanwhile.
 * Then the receipt is signed (`forget.sign`, async: WebCrypto) and the handles kept for it go.
 */
export type ErasurePhase = "sessions" | "memory" | "items" | "search" | "purge" | "owners" | "served" | "tidy";

export interface ErasureJob {
  receiptId: string;
  phase: ErasurePhase;
  /** Where the phase's walk stopped: a `seq` or a rowid. */
  after: number;
  /** The last item stored before the request: later ones were checked at intake. */
  through: number;
  /** Profiles whose events met the subject's (their items may name its handles). */
  met: string[];
  /** Export files of the subject in R2: the object deletes them before it signs. */
  files: ErasedFile[];
}

/** A slice runs steps while its stopwatch shows less than this (as the compiler)... */
export const SLICE_BUDGET_MS = 8;
/** ...and at most this many steps (in production the clock stands still during work). */
export const SLICE_STEPS = 16;
/**
 * Rows one step handles in each phase: a step takes a few milliseconds at most in the test pool
 * (about 30 µs an event with its session's share, 20 µs a memory entry with its three indexes,
 * 1 µs an item scanned, 40 µs a search row in both tables), so that a slice stays near its budget
 * where the clock stands still.
 */
export const STEP = { events: 100, entries: 40, items: 500, search: 50, sweep: 1_000 } as const;
const NO_LIMIT = Number.MAX_SAFE_INTEGER;

export type ErasureState = "running" | "signing" | "completed";

/** What the forget route and the receipt read answer: the receipt once signed, else the erasure's state. */
export type ErasureView = { state: "completed"; receipt: Receipt } | { state: "running"; receipt_id: string; started_at: string };

/**
 * Starts erasing the subject named by `input` (its root and every profile merged into it): the
 * cut, then the job's first timer, due at once. A subject already being erased answers that
 * erasure; one the space does not hold (any more) is `404`.
 */
export function requestErasure(
  sql: SqlStorage,
  input: ForgetInput,
  now: number,
): { receiptId: string; members: string[]; job: ErasureJob | null } {
  const running = runningErasureOf(sql, input);
  if (running) return { receiptId: running, members: [], job: null };
  // Messages not indexed yet are indexed first, so that the erasure finds all of the subject's rows.
  catchUpIndex(sql, null);
  const rootId = subjectRoot(sql, input);
  const members = membersOf(sql, rootId);
  const receiptId = uuidv7(now);
  sql.exec(
    "INSERT INTO erasures (receipt_id, state, counts, started_at) VALUES (?, 'running', ?, ?)",
    receiptId,
    JSON.stringify(noCounts()),
    now,
  );
  const { met, files, counts } = cutSubject(sql, receiptId, { rootId, members });
  addCounts(sql, receiptId, counts);
  const through = sql.exec<{ seq: number | null }>("SELECT max(seq) AS seq FROM items").one().seq ?? 0;
  const job: ErasureJob = { receiptId, phase: "sessions", after: 0, through, met, files };
  setTimer(sql, { kind: "forget.run", key: receiptId, dueAt: now, payload: job });
  return { receiptId, members, job };
}

function subjectRoot(sql: SqlStorage, input: ForgetInput): string {
  if ("profile_id" in input && input.profile_id !== undefined) {
    const root = rootOf(sql, input.profile_id);
    if (!root) throw new Problem("not_found", "no such profile");
    return root.profileId;
  }
  const normalized = normalizeHandle(input.handle ?? { type: "", value: "" });
  if (!normalized.ok) throw new Problem("invalid_input", `handle.value: ${normalized.rule}`);
  const handle = findHandle(sql, normalized.handle);
  const root = handle ? rootOf(sql, handle.profileId) : null;
  if (!root) throw new Problem("not_found", "no profile holds this handle");
  return root.profileId;
}

/** The erasure under way of a subject named by a handle or profile id it had, if any. */
function runningErasureOf(sql: SqlStorage, input: ForgetInput): string | null {
  if ("profile_id" in input && input.profile_id !== undefined) {
    return (
      sql
        .exec<{ receipt_id: string }>("SELECT receipt_id FROM erasure_profiles WHERE profile_id = ?", input.profile_id)
        .toArray()[0]?.receipt_id ?? null
    );
  }
  const normalized = normalizeHandle(input.handle ?? { type: "", value: "" });
  if (!normalized.ok) return null;
  const { type, scope, value } = normalized.handle;
  return (
    sql
      .exec<{ receipt_id: string }>(
        "SELECT receipt_id FROM erasure_handles WHERE type = ? AND scope = ? AND value = ?",
        type,
        scope,
        value,
      )
      .toArray()[0]?.receipt_id ?? null
  );
}

/**
 * One slice of an erasure; the next is due at once until the data is erased, then the signing.
 * Returns whether the receipt is ready to be signed.
 */
export function continueErasure(sql: SqlStorage, job: ErasureJob, now: number, stopwatch: () => number): boolean {
  const started = stopwatch();
  const counts: Partial<ErasureCounts> = {};
  let next: ErasureJob | null = job;
  // Batches since the request place nothing of the subject (`arrivals.ts`): what they placed before is folded in the first phase.
  if (job.phase === "sessions") foldInboxes(sql);
  for (let steps = 0; next && steps < SLICE_STEPS && (steps === 0 || stopwatch() - started < SLICE_BUDGET_MS); steps++) {
    next = step(sql, next, counts);
  }
  addCounts(sql, job.receiptId, counts);
  if (next) {
    setTimer(sql, { kind: "forget.run", key: job.receiptId, dueAt: now, payload: next });
    return false;
  }
  sql.exec("UPDATE erasures SET state = 'signing' WHERE receipt_id = ? AND state = 'running'", job.receiptId);
  retrySigning(sql, { kind: "forget.sign", key: job.receiptId, dueAt: now, payload: { files: job.files } }, now);
  return true;
}

/**
 * The object deletes the export files and signs the receipt right after the slice that finished
 * the erasure; this timer (with the files) does it again after a restart in between.
 */
export function retrySigning(sql: SqlStorage, timer: Timer, now: number): void {
  setTimer(sql, { ...timer, dueAt: now + SIGN_RETRY_MS });
}

/** The export files an erasure waiting for its signature still has to delete. */
export function filesToDelete(sql: SqlStorage, receiptId: string): ErasedFile[] {
  const row = sql
    .exec<{ payload: string | null }>("SELECT payload FROM timers WHERE kind = 'forget.sign' AND key = ?", receiptId)
    .toArray()[0];
  return row?.payload ? ((JSON.parse(row.payload) as { files?: ErasedFile[] }).files ?? []) : [];
}

const SIGN_RETRY_MS = 10_000;

function step(sql: SqlStorage, job: ErasureJob, counts: Partial<ErasureCounts>): ErasureJob | null {
  const then = (phase: ErasurePhase): ErasureJob => ({ ...job, phase, after: 0 });
  const add = (name: keyof ErasureCounts, n: number) => {
    counts[name] = (counts[name] ?? 0) + n;
  };
  switch (job.phase) {
    case "sessions": {
      const session = sql
        .exec<{ session_id: string; profile_id: string; conversation_id: string | null }>(
          `SELECT s.session_id, s.profile_id, s.conversation_id FROM erasure_profiles e CROSS JOIN sessions s
           WHERE e.receipt_id = ? AND s.profile_id = e.profile_id LIMIT 1`,
          job.receiptId,
        )
        .toArray()[0];
      if (!session) return then("memory");
      const erased = eraseSessionEvents(sql, session.session_id, STEP.events, NO_LIMIT);
      add("events", erased.events);
      add("search_rows", erased.searchRows);
      if (!erased.more) {
        const dropped = dropSession(
          sql,
          { sessionId: session.session_id, profileId: session.profile_id, conversationId: session.conversation_id },
          true,
          STEP.search,
        );
        if (dropped.done) add("sessions", 1);
        add("memory_items", dropped.memoryItems);
        add("search_rows", dropped.searchRows);
      }
      return job;
    }
    case "memory": {
      const erased = sql
        .exec(
          `DELETE FROM memory_entries WHERE rowid IN (SELECT m.rowid FROM erasure_profiles e CROSS JOIN memory_entries m
             WHERE e.receipt_id = ? AND m.profile_id = e.profile_id LIMIT ?) RETURNING 1`,
          job.receiptId,
          STEP.entries,
        )
        .toArray().length;
      add("memory_items", erased);
      return erased < STEP.entries ? then("items") : job;
    }
    case "items": {
      const to = Math.min(job.after + STEP.items, job.through);
      const seqs = sql
        .exec<{ seq: number }>(
          `SELECT seq FROM items WHERE seq > ? AND seq <= ?
           AND profile_id IN (SELECT profile_id FROM erasure_profiles WHERE receipt_id = ?)`,
          job.after,
          to,
          job.receiptId,
        )
        .toArray()
        .map((row) => row.seq);
      add("events", tombstoneItems(sql, seqs));
      add("mentions", scrubMentions(sql, job, to));
      return to >= job.through ? then("search") : { ...job, after: to };
    }
    case "search": {
      const members = sql
        .exec<{ profile_id: string }>("SELECT profile_id FROM erasure_profiles WHERE receipt_id = ?", job.receiptId)
        .toArray()
        .map((row) => `"${idToken(row.profile_id)}"`);
      // From the last rowid deleted on: the deleted rows' entries stay in the token's doclist until
      // the purge, and a match from the start would read them all again at every step.
      const expression = `profile : (${members.join(" OR ")})`;
      const rowids = members.length === 0 ? [] : searchRowids(sql, expression, STEP.search, job.after);
      const last = rowids.at(-1);
      if (last === undefined) return then("purge");
      add("search_rows", deleteSearchRows(sql, rowids));
      return { ...job, after: last };
    }
    case "purge":
      return purgeSearchStep(sql, job.after === 0) ? { ...job, after: 1 } : then("owners");
    case "owners":
    case "served": {
      const table = job.phase === "owners" ? "object_owners" : "served_contexts";
      const swept = sweep(sql, table, job);
      add(job.phase === "owners" ? "identity_evidence" : "served_contexts", swept.erased);
      if (swept.after !== null) return { ...job, after: swept.after };
      return then(job.phase === "owners" ? "served" : "tidy");
    }
    case "tidy":
      tidy(sql, job.receiptId, add);
      return null;
  }
}

/** Other subjects' items up to `to` that may name the subject's handles: found by profile (met) or by the value's text, checked normalized. */
function scrubMentions(sql: SqlStorage, job: ErasureJob, to: number): number {
  const rows = sql
    .exec<{ seq: number; body: string }>(
      `SELECT seq, body FROM items WHERE seq > ?1 AND seq <= ?2 AND type IN ('event', 'identify', 'verify')
       AND (profile_id IN (SELECT value FROM json_each(?3))
         OR EXISTS (SELECT 1 FROM erasure_handles h WHERE h.receipt_id = ?4 AND instr(lower(items.body), lower(h.value)) > 0))`,
      job.after,
      to,
      JSON.stringify(job.met),
      job.receiptId,
    )
    .toArray();
  if (rows.length === 0) return 0;
  const erased = erasedHandleKeys(sql, job.receiptId);
  let scrubbed = 0;
  for (const row of rows) {
    const body = withoutHandles(row.body, erased);
    if (body === null) continue;
    sql.exec("UPDATE items SET body = ? WHERE seq = ?", body, row.seq);
    scrubbed++;
  }
  return scrubbed;
}

/** Deletes a range of `STEP.sweep` rowids' rows of the subject's profiles; `after` null: the table's end was reached. */
function sweep(sql: SqlStorage, table: string, job: ErasureJob): { erased: number; after: number | null } {
  const end =
    sql
      .exec<{ rowid: number }>(
        `SELECT rowid FROM ${table} WHERE rowid > ? ORDER BY rowid LIMIT 1 OFFSET ?`,
        job.after,
        STEP.sweep - 1,
      )
      .toArray()[0]?.rowid ?? null;
  const erased = sql
    .exec(
      `DELETE FROM ${table} WHERE rowid > ? AND rowid <= ?
       AND profile_id IN (SELECT profile_id FROM erasure_profiles WHERE receipt_id = ?) RETURNING 1`,
      job.after,
      end ?? NO_LIMIT,
      job.receiptId,
    )
    .toArray().length;
  return { erased, after: end };
}

/** The small remainders, and again what a job under way may have written since the cut. */
function tidy(sql: SqlStorage, receiptId: string, add: (name: keyof ErasureCounts, n: number) => void): void {
  const members = JSON.stringify(
    sql
      .exec<{ profile_id: string }>("SELECT profile_id FROM erasure_profiles WHERE receipt_id = ?", receiptId)
      .toArray()
      .map((row) => row.profile_id),
  );
  sql.exec(
    "DELETE FROM handle_sightings WHERE handle_id IN (SELECT handle_id FROM erasure_handles WHERE receipt_id = ?)",
    receiptId,
  );
  // An identity write's kept answer can hold the subject's ids and whole handles (a link, a suggestion).
  const answers = sql
    .exec(
      `DELETE FROM idempotency_records WHERE
         EXISTS (SELECT 1 FROM json_each(?1) m WHERE instr(idempotency_records.answer, m.value) > 0)
         OR EXISTS (SELECT 1 FROM erasure_handles h WHERE h.receipt_id = ?2
           AND (instr(idempotency_records.answer, h.handle_id) > 0 OR instr(lower(idempotency_records.answer), lower(h.value)) > 0))
       RETURNING 1`,
      members,
      receiptId,
    )
    .toArray().length;
  add("kept_answers", answers);
  sql.exec(
    "DELETE FROM timers WHERE kind = 'promise.due' AND payload ->> 'profileId' IN (SELECT value FROM json_each(?))",
    members,
  );
  add("identity_evidence", forgetEvidence(sql, members));
  add(
    "suggestions",
    sql
      .exec(
        `DELETE FROM suggestions WHERE profile_a IN (SELECT value FROM json_each(?1)) OR profile_b IN (SELECT value FROM json_each(?1))
         RETURNING 1`,
        members,
      )
      .toArray().length,
  );
  for (const table of ["compile_queue", "compile_inbox", "model_queue", "memories", "memory_entries"]) {
    sql.exec(`DELETE FROM ${table} WHERE profile_id IN (SELECT value FROM json_each(?))`, members);
  }
}

function addCounts(sql: SqlStorage, receiptId: string, counts: Partial<ErasureCounts>): void {
  const added = Object.entries(counts).filter(([, n]) => n !== undefined && n > 0);
  if (added.length === 0) return;
  const row = sql.exec<{ counts: string }>("SELECT counts FROM erasures WHERE receipt_id = ?", receiptId).toArray()[0];
  if (!row) return;
  const total = { ...noCounts(), ...(JSON.parse(row.counts) as Partial<ErasureCounts>) };
  for (const [name, n] of added) total[name as keyof ErasureCounts] += n ?? 0;
  sql.exec("UPDATE erasures SET counts = ? WHERE receipt_id = ?", JSON.stringify(total), receiptId);
}

/** Items of a subject under erasure that a batch stored as tombstones (the erasure wins): counted as its events. */
export function countArrivals(sql: SqlStorage, receipts: ReadonlyMap<string, number>): void {
  for (const [receiptId, events] of receipts) addCounts(sql, receiptId, { events });
}

/** What the receipt is made of, once the data is erased and before it is signed; null otherwise. */
export function pendingReceipt(
  sql: SqlStorage,
  receiptId: string,
): { counts: ErasureCounts; startedAt: number; handles: { type: string; scope: string; value: string }[] } | null {
  const row = sql
    .exec<{ counts: string; started_at: number }>(
      "SELECT counts, started_at FROM erasures WHERE receipt_id = ? AND state = 'signing'",
      receiptId,
    )
    .toArray()[0];
  if (!row) return null;
  const handles = sql
    .exec<{ type: string; scope: string; value: string }>(
      "SELECT type, scope, value FROM erasure_handles WHERE receipt_id = ?",
      receiptId,
    )
    .toArray()
    .map(({ type, scope, value }) => ({ type, scope, value }));
  return { counts: { ...noCounts(), ...(JSON.parse(row.counts) as Partial<ErasureCounts>) }, startedAt: row.started_at, handles };
}

/** Keeps the signed receipt and lets go of what only the erasure needed (the handles, the profile ids). */
export function completeErasure(sql: SqlStorage, receipt: Receipt, now: number): void {
  const id = receipt.receipt_id;
  const updated = sql
    .exec(
      "UPDATE erasures SET state = 'completed', completed_at = ?, receipt = ? WHERE receipt_id = ? AND state = 'signing' RETURNING 1",
      now,
      JSON.stringify(receipt),
      id,
    )
    .toArray().length;
  if (updated === 0) return;
  sql.exec("DELETE FROM erasure_handles WHERE receipt_id = ?", id);
  sql.exec("DELETE FROM erasure_profiles WHERE receipt_id = ?", id);
  sql.exec("DELETE FROM timers WHERE kind = 'forget.sign' AND key = ?", id);
}

/** An erasure as the routes show it; null for an id the space never issued. */
export function erasureView(sql: SqlStorage, receiptId: string): ErasureView | null {
  const row = sql
    .exec<{ state: ErasureState; started_at: number; receipt: string | null }>(
      "SELECT state, started_at, receipt FROM erasures WHERE receipt_id = ?",
      receiptId,
    )
    .toArray()[0];
  if (!row) return null;
  if (row.state === "completed" && row.receipt) return { state: "completed", receipt: JSON.parse(row.receipt) as Receipt };
  return { state: "running", receipt_id: receiptId, started_at: new Date(row.started_at).toISOString() };
}
