import { deleteTimers, setTimer, setTimers } from "../timers";
import { type MediaRecord, markStored, mediaRecords, UPLOAD_WINDOW_MS } from "./reservations";

/**
 * How long after a reservation's expiry R2 is looked at for its bytes: a presigned upload started
 * before `expires_at` may still be arriving, and 500 MB on a slow line takes a while.
 */
export const EXPIRY_GRACE_MS = 60 * 60 * 1000;
/**
 * How long after the grace R2 is looked at once more for a reservation that had no bytes: an
 * upload slower than the grace (500 MB at under 140 kB/s) lands after its row went, where no quota
 * counts it and no erasure finds it; its bytes are deleted then. Slower still, they stay.
 */
export const LATE_UPLOAD_MS = 24 * 60 * 60 * 1000;
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
 * expired. `refused`: the refs whose objects were deleted (no bytes, other bytes, or erased), looked
 * at once more `LATE_UPLOAD_MS` after the grace, unless this was that look.
 */
export function settleExpired(
  sql: SqlStorage,
  refs: readonly string[],
  { arrived, refused }: { arrived: ReadonlySet<string>; refused: readonly string[] },
  now: number,
): void {
  markStored(
    sql,
    refs.filter((ref) => arrived.has(ref)),
    now,
  );
  sql.exec(
    "DELETE FROM media WHERE media_ref IN (SELECT value FROM json_each(?)) AND status = 'reserved'",
    JSON.stringify(refs.filter((ref) => !arrived.has(ref))),
  );
  const again = new Set(refused.filter((ref) => lastLookAt(ref) > now));
  deleteTimers(
    sql,
    "media.expiry",
    refs.filter((ref) => !again.has(ref)),
  );
  setTimers(
    sql,
    [...again].map((ref) => ({ kind: "media.expiry", key: ref, dueAt: lastLookAt(ref), payload: null })),
  );
}

/** When R2 is looked at the last time for a reservation: its `media_ref` is a UUIDv7 of the time it was made (`reserveMedia`). */
function lastLookAt(mediaRef: string): number {
  const reservedAt = Number.parseInt(mediaRef.slice(0, 8) + mediaRef.slice(9, 13), 16);
  return reservedAt + UPLOAD_WINDOW_MS + EXPIRY_GRACE_MS + LATE_UPLOAD_MS;
}
