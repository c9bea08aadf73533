import type { UploadReservationInput } from "../../contract/media";
import { Problem } from "../../http/problem";
import { uuidv7 } from "../../ids";
import { normalizeHandle } from "../identity/handles";
import { profileOfHandle } from "../identity/links";

/** How long a reservation's upload URL works: time enough for 500 MB on a slow line, short enough to leak little. */
export const UPLOAD_WINDOW_MS = 60 * 60 * 1000;

/** `erased`: forget took it; the row waits for its R2 object to be deleted (`erasure.ts`). */
export type MediaStatus = "reserved" | "stored" | "erased";

export interface MediaRecord {
  mediaRef: string;
  contentType: string;
  sizeBytes: number;
  sha256: string;
  profileId: string | null;
  status: MediaStatus;
  reservedAt: number;
  expiresAt: number;
  storedAt: number | null;
}

interface MediaRow {
  media_ref: string;
  content_type: string;
  size_bytes: number;
  sha256: string;
  profile_id: string | null;
  status: string;
  reserved_at: number;
  expires_at: number;
  stored_at: number | null;
  [column: string]: SqlStorageValue;
}

const COLUMNS = "media_ref, content_type, size_bytes, sha256, profile_id, status, reserved_at, expires_at, stored_at";

const record = (row: MediaRow): MediaRecord => ({
  mediaRef: row.media_ref,
  contentType: row.content_type,
  sizeBytes: row.size_bytes,
  sha256: row.sha256,
  profileId: row.profile_id,
  status: row.status as MediaStatus,
  reservedAt: row.reserved_at,
  expiresAt: row.expires_at,
  storedAt: row.stored_at,
});

/**
 * `POST /v1/media/uploads`: a reservation of `size_bytes` bytes hashing to `sha256`, under its
 * subject's profile when it names one (created for a handle the space does not know). The
 * reservation starts on a whole second, so that a presigned URL's `X-Amz-Date` plus its
 * `X-Amz-Expires` is `expires_at` exactly. `mediaShare`: the space's share of the tenant's
 * `media_bytes` quota, which files stored and reservations still open count against.
 */
export function reserveMedia(
  sql: SqlStorage,
  input: UploadReservationInput,
  by: { reservedBy: string; sourceId: string | null },
  now: number,
  mediaShare: number | null,
): MediaRecord {
  if (mediaShare !== null && heldMediaBytes(sql, true) + input.size_bytes > mediaShare) {
    throw new Problem("rate_limited", "the tenant's media quota is used up", { "Retry-After": "3600" });
  }
  let profileId: string | null = null;
  if (input.subject) {
    const normalized = normalizeHandle(input.subject);
    if (!normalized.ok) throw new Problem("invalid_input", `subject.value: ${normalized.rule}`);
    profileId = profileOfHandle(sql, normalized.handle, "person", by.sourceId, now);
  }
  const reservedAt = Math.floor(now / 1000) * 1000;
  const created: MediaRecord = {
    mediaRef: uuidv7(now),
    contentType: input.content_type,
    sizeBytes: input.size_bytes,
    sha256: input.sha256,
    profileId,
    status: "reserved",
    reservedAt,
    expiresAt: reservedAt + UPLOAD_WINDOW_MS,
    storedAt: null,
  };
  sql.exec(
    `INSERT INTO media (${COLUMNS}, reserved_by) VALUES (?, ?, ?, ?, ?, 'reserved', ?, ?, NULL, ?)`,
    created.mediaRef,
    created.contentType,
    created.sizeBytes,
    created.sha256,
    created.profileId,
    created.reservedAt,
    created.expiresAt,
    by.reservedBy,
  );
  return created;
}

/** The records of the references among `refs` that this space holds, in one indexed read. */
export function mediaRecords(sql: SqlStorage, refs: readonly string[]): Map<string, MediaRecord> {
  if (refs.length === 0) return new Map();
  const rows = sql
    .exec<MediaRow>(
      `SELECT ${COLUMNS.split(", ")
        .map((column) => `m.${column}`)
        .join(", ")} FROM json_each(?) j CROSS JOIN media m WHERE m.media_ref = j.value`,
      JSON.stringify(refs),
    )
    .toArray();
  return new Map(rows.map((row) => [row.media_ref, record(row)]));
}

/**
 * The reservation an upload goes to, if it may: an unknown one is `404`, one already stored
 * `409 conflict` (one upload per reservation), an expired one `401` (its token is spent).
 */
export function reservationForUpload(sql: SqlStorage, mediaRef: string, now: number): MediaRecord {
  const found = mediaRecords(sql, [mediaRef]).get(mediaRef);
  if (!found || found.status === "erased") throw new Problem("not_found", "no such reservation");
  if (found.status === "stored") throw new Problem("conflict", "this reservation was uploaded already; reserve again");
  if (found.expiresAt <= now) throw new Problem("unauthenticated", "the reservation has expired; reserve again");
  return found;
}

/**
 * Marks reservations whose bytes are in R2 as stored; answers the ones it marked. A reservation
 * stored already is left as it is (a second upload of one reservation is refused by its caller).
 */
export function markStored(sql: SqlStorage, refs: readonly string[], now: number): Set<string> {
  if (refs.length === 0) return new Set();
  const rows = sql
    .exec<{ media_ref: string }>(
      "UPDATE media SET status = 'stored', stored_at = ? WHERE media_ref IN (SELECT value FROM json_each(?)) AND status = 'reserved' RETURNING media_ref",
      now,
      JSON.stringify(refs),
    )
    .toArray();
  return new Set(rows.map((row) => row.media_ref));
}

/**
 * After the development store put an upload's bytes in R2: the reservation, stored; one stored
 * already is `409` (two uploads raced), one forget erased meanwhile `404` (its caller deletes the
 * bytes it just wrote).
 */
export function completeUpload(sql: SqlStorage, mediaRef: string, now: number): MediaRecord {
  if (markStored(sql, [mediaRef], now).has(mediaRef)) return mediaRecords(sql, [mediaRef]).get(mediaRef) as MediaRecord;
  const found = mediaRecords(sql, [mediaRef]).get(mediaRef);
  if (!found || found.status === "erased") throw new Problem("not_found", "no such reservation");
  throw new Problem("conflict", "this reservation was uploaded already; reserve again");
}

/**
 * Bytes of media the space holds; with `open`, also the bytes reservations not yet settled may
 * bring: past its `expires_at` a presigned upload may still land, until `settleExpired`.
 */
export function heldMediaBytes(sql: SqlStorage, open = false): number {
  return sql
    .exec<{ bytes: number }>(
      `SELECT coalesce(sum(size_bytes), 0) AS bytes FROM media WHERE status IN (${open ? "'stored', 'reserved'" : "'stored'"})`,
    )
    .one().bytes;
}
