import type { ForgetInput } from "../../contract/privacy";
import { Problem } from "../../http/problem";
import { uuidv7 } from "../../ids";
import { findHandle } from "../identity/handle-store";
import { normalizeHandle } from "../identity/handles";
import { membersOf, rootOf } from "../identity/profiles";
import { importsOpenAt } from "../imports/erasure";
import { catchUpIndex } from "../search/backlog";
import { deleteTimers, setTimer, type Timer } from "../timers";
import { type ErasureJob, type ErasurePhase, rowsFor, step } from "./erasure-steps";
import { cutSubject, type ErasedFile } from "./identity-cut";
import { type ErasureCounts, noCounts, type Receipt } from "./receipts";
import { foldInboxes } from "./session-erasure";

/**
 * `POST /v1/forget` (docs/api/privacy.md): the subject is cut loose in the request's transaction
 * (`identity-cut.ts`), then erased in slices from the object's alarm, like the suggestions job:
 * each slice runs steps (`erasure-steps.ts`) while it stays within `SLICE_MS` and hands its state
 * to the next through its timer (`forget.run`, keyed by the receipt), so a restart resumes where
 * the last committed slice stopped. Then the receipt is signed (`forget.sign`, async: WebCrypto)
 * and the handles kept for it go.
 */
export type { ErasureJob } from "./erasure-steps";

/**
 * A slice's work: each step after the first is sized to what is left of this (by the slice's
 * stopwatch, or by the steps' estimated cost where the clock stands still during work, as in
 * production), from what the rows of the step before cost (`rowsFor`). Each slice is a
 * transaction, a commit and a yield to requests, so slices are as full as this allows. A read of
 * another customer waits for the slice under way (`RequestPacing`), so this bounds what an
 * erasure adds to other customers' reads: a slice's length counted for more than how often slices
 * come (5 ms against 10, side by side; longer slices with longer pauses between did worse), for
 * twice the erasure's time (docs/performance.md, "The erasure").
 */
export const SLICE_MS = 5;
/**
 * The first slice, in the forget request, erases the subject's rows within `SLICE_MS` like any
 * other; once they are all gone it may go on this much longer for the phases whose cost is the
 * space's, not the subject's (the purge's merge, the sweeps, the tidy: about 9 ms by their
 * estimates, more than a slice), so that a small subject is done, and its receipt signed, before
 * the answer. The request is the caller's own, and rare.
 */
export const REQUEST_FINISH_MS = 20;
/** The phases after the subject's own rows. */
const SPACE_PHASES: readonly ErasurePhase[] = ["purge", "owners", "served", "tidy"];
/** Retention's slices (`retention.ts`): steps while the stopwatch shows less than this... */
export const SLICE_BUDGET_MS = 8;
/** ...and at most this many steps. */
export const SLICE_STEPS = 16;

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
  const { files, counts } = cutSubject(sql, receiptId, { rootId, members });
  addCounts(sql, receiptId, counts);
  const job: ErasureJob = { receiptId, phase: "events", after: 0, files };
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
 * One slice of an erasure (`finishMs`: what the slice may add for the last phases, in the
 * request); the next is due at once until the data is erased, then the signing. Returns whether
 * the receipt is ready to be signed.
 */
export function continueErasure(sql: SqlStorage, job: ErasureJob, now: number, stopwatch: () => number, finishMs = 0): boolean {
  const started = stopwatch();
  const counts: Partial<ErasureCounts> = { ...job.counts };
  const add = (name: keyof ErasureCounts, n: number) => {
    counts[name] = (counts[name] ?? 0) + n;
  };
  // Batches since the request place nothing of the subject (`arrivals.ts`): what they placed before is folded first.
  if (job.phase === "events" || job.phase === "sessions") foldInboxes(sql);
  let next: ErasureJob | null = job;
  let estimated = 0;
  let rows: number | undefined;
  while (next) {
    const before = stopwatch();
    const phase = next.phase;
    const taken = step(sql, next, add, rows);
    next = taken.next;
    estimated += taken.costMs;
    if (!next) break;
    const took = Math.max(stopwatch() - before, taken.costMs);
    const budget = SLICE_MS + (SPACE_PHASES.includes(next.phase) ? finishMs : 0);
    const left = budget - Math.max(stopwatch() - started, estimated);
    rows = rowsFor(next.phase, left, next.phase === phase ? took / taken.rows : null);
    if (rows === 0) break;
  }
  if (next) {
    setTimer(sql, { kind: "forget.run", key: job.receiptId, dueAt: now, payload: { ...next, counts } });
    return false;
  }
  addCounts(sql, job.receiptId, counts);
  // Done in the request: the timer the request set is not needed.
  deleteTimers(sql, "forget.run", [job.receiptId]);
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

/**
 * What the receipt is made of, once the data is erased and before it is signed, and no import
 * sent before the request is still open (`importsOpenAt`: the signing timer tries again until
 * none is); null otherwise.
 */
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
  if (!row || importsOpenAt(sql, row.started_at)) return null;
  const handles = sql
    .exec<{ type: string; scope: string; value: string }>(
      "SELECT type, scope, value FROM erasure_handles WHERE receipt_id = ?",
      receiptId,
    )
    .toArray()
    .map(({ type, scope, value }) => ({ type, scope, value }));
  return { counts: { ...noCounts(), ...(JSON.parse(row.counts) as Partial<ErasureCounts>) }, startedAt: row.started_at, handles };
}

/**
 * Keeps the signed receipt and lets go of what only the erasure needed (the handles, the profile
 * ids); answers whether it did. Not when the erasure's counts are no longer the receipt's (a
 * batch added tombstones while it was signed): the signing timer signs it again.
 */
export function completeErasure(sql: SqlStorage, receipt: Receipt, now: number): boolean {
  const id = receipt.receipt_id;
  const row = sql
    .exec<{ counts: string }>("SELECT counts FROM erasures WHERE receipt_id = ? AND state = 'signing'", id)
    .toArray()[0];
  if (!row) return false;
  const counts = { ...noCounts(), ...(JSON.parse(row.counts) as Partial<ErasureCounts>) };
  if (Object.entries(counts).some(([name, n]) => receipt.counts[name as keyof ErasureCounts] !== n)) return false;
  const updated = sql
    .exec(
      "UPDATE erasures SET state = 'completed', completed_at = ?, receipt = ? WHERE receipt_id = ? AND state = 'signing' RETURNING 1",
      now,
      JSON.stringify(receipt),
      id,
    )
    .toArray().length;
  if (updated === 0) return false;
  sql.exec("DELETE FROM erasure_handles WHERE receipt_id = ?", id);
  sql.exec("DELETE FROM erasure_profiles WHERE receipt_id = ?", id);
  sql.exec("DELETE FROM timers WHERE kind = 'forget.sign' AND key = ?", id);
  return true;
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
