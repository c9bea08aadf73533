import { deleteTimers, setTimer } from "../timers";
import { findImport, type ImportRow } from "./records";

/**
 * The watch on an import that nobody may be reading (docs/api/imports.md "An import nobody reads"):
 * one `import.watch` timer per import, pushed back by every sign of progress. A queue message can
 * be lost for good (its send failed after the import was queued, or its deliveries ran out), and
 * a file can stop arriving halfway with no one left to say so; without the watch such an import
 * would show `queued` or `running`, or hold its half-written file, forever.
 */

/** A reader that stored nothing for this long is gone: a consumer run reads for at most 10 minutes (`READ_BUDGET_MS`) of its 15. */
export const STALL_MS = 20 * 60 * 1000;
/** The import's message is sent again this many times, each after `STALL_MS` without progress, before it fails `stalled`. */
export const MAX_RESENDS = 3;
/** How long a file may take to arrive through `POST /v1/ingest/files` (512 MB at about 25 KB/s) before its import is dropped. */
export const RECEIVE_WINDOW_MS = 6 * 60 * 60 * 1000;
/** How soon the watch sends an import's message again when the send at its queueing failed. */
export const SEND_RETRY_MS = 30 * 1000;
/** While the object acts on a due watch, its timer is held this long: a restart meanwhile has it fire again. */
const LEASE_MS = 5 * 60 * 1000;

export const STALLED = `stalled: no reader made progress in ${MAX_RESENDS + 1} tries of ${STALL_MS / 60_000} minutes`;

interface Watch {
  resends: number;
}

/** Watches an import from now: a file arriving, or a reader's progress (which starts the count of resends again). */
export function watchImport(sql: SqlStorage, importId: string, status: "receiving" | "queued", now: number): void {
  const dueAt = now + (status === "receiving" ? RECEIVE_WINDOW_MS : STALL_MS);
  setTimer(sql, { kind: "import.watch", key: importId, dueAt, payload: { resends: 0 } satisfies Watch });
}

/** The send of a queued import's message failed: the watch looks again in `SEND_RETRY_MS`, and sends it. */
export function sendFailed(sql: SqlStorage, importId: string, now: number): void {
  setTimer(sql, { kind: "import.watch", key: importId, dueAt: now + SEND_RETRY_MS, payload: { resends: 0 } satisfies Watch });
}

export function unwatchImport(sql: SqlStorage, importId: string): void {
  deleteTimers(sql, "import.watch", [importId]);
}

/**
 * The import just ended: its watch stays, due in `LEASE_MS`, until its own file is deleted from
 * R2 (`unwatchImport` then); a delete that fails or an object that restarts before it is done
 * has the watch delete the file when it comes due.
 */
export function watchEnded(sql: SqlStorage, importId: string, now: number): void {
  setTimer(sql, { kind: "import.watch", key: importId, dueAt: now + LEASE_MS, payload: { resends: 0 } satisfies Watch });
}

/** The due watch, held while the object acts on it after the round; its resends so far are kept. */
export function holdWatch(sql: SqlStorage, importId: string, payload: unknown, now: number): void {
  setTimer(sql, { kind: "import.watch", key: importId, dueAt: now + LEASE_MS, payload });
}

/**
 * What a due watch comes to: nothing (the import is gone, or ended reading a media upload), delete
 * the own file of an import that ended, drop a file that never arrived, send the message again,
 * or fail it.
 */
export type WatchVerdict =
  | { act: "none" }
  | { act: "delete"; row: ImportRow }
  | { act: "drop"; row: ImportRow }
  | { act: "resend"; resends: number }
  | { act: "fail"; row: ImportRow };

export function watchVerdict(sql: SqlStorage, importId: string, payload: unknown): WatchVerdict {
  const row = findImport(sql, importId);
  if (!row) return { act: "none" };
  if (row.status === "completed" || row.status === "failed") return row.own_file ? { act: "delete", row } : { act: "none" };
  if (row.status === "receiving") return { act: "drop", row };
  const resends = (payload as Watch | null)?.resends ?? 0;
  return resends < MAX_RESENDS ? { act: "resend", resends: resends + 1 } : { act: "fail", row };
}

/** After a resend: the next look is `STALL_MS` on, with one more resend counted. */
export function watchAgain(sql: SqlStorage, importId: string, resends: number, now: number): void {
  setTimer(sql, { kind: "import.watch", key: importId, dueAt: now + STALL_MS, payload: { resends } satisfies Watch });
}
