import { deleteTimers, setTimer } from "../timers";
import { type MediaRecord, markStored, mediaRecords } from "./reservations";

/**
 * How long after a reservation's expiry R2 is looked at for its bytes: a presigned upload started
 * before `expires_at` may still be arriving, and 500 MB on a slow line takes a while.
 */
export const EXPIRY_GRACE_MS = 60 * 60 * 1000;
/** While the object looks in R2, the timer is held this long: a restart meanwhile has it fire again. */
const LOOK_LEASE_MS = 5 * 60 * 1000;

/** A reservation's timer: once its upload window and the grace are over, `settleExpired` decides what it is. */
export function scheduleExpiry(sql: SqlStorage, record: MediaRecord): void {
  setTimer(sql, { kind: "media.expiry", key: record.mediaRef, dueAt: record.expiresAt + EXPIRY_GRACE_MS, payload: null });
}

/** The due timer, held while the object looks in R2 after the round. */
export function holdExpiry(sql: SqlStorage, mediaRef: string, now: number): void {
  setTimer(sql, { kind: "media.expiry", key: mediaRef, dueAt: now + LOOK_LEASE_MS, payload: null });
}

/**
 * What the expired `refs` are now: `waiting`, the reservations still waiting for their bytes;
 * `erased`, those forget erased (the row `erased`, or gone once R2 was emptied). One stored
 * meanwhile is settled.
 */
export function expiredReservations(sql: SqlStorage, refs: readonly string[]): { waiting: MediaRecord[]; erased: string[] } {
  const records = mediaRecords(sql, refs);
  return {
    waiting: [...records.values()].filter((record) => record.status === "reserved"),
    erased: refs.filter((ref) => (records.get(ref)?.status ?? "erased") === "erased"),
  };
}

/**
 * Settles expired reservations, after R2 was looked at: bytes a presigned upload put there make
 * the reservation `stored` (from then on counted against the `media_bytes` quota, and erased
 * with its subject); a reservation without bytes is deleted, since it can take none any more.
 * Without this, a file uploaded but never pointed to would stop counting once its reservation
 * expired.
 */
export function settleExpired(sql: SqlStorage, refs: readonly string[], arrived: ReadonlySet<string>, now: number): void {
  markStored(
    sql,
    refs.filter((ref) => arrived.has(ref)),
    now,
  );
  sql.exec(
    "DELETE FROM media WHERE media_ref IN (SELECT value FROM json_each(?)) AND status = 'reserved'",
    JSON.stringify(refs.filter((ref) => !arrived.has(ref))),
  );
  deleteTimers(sql, "media.expiry", refs);
}
