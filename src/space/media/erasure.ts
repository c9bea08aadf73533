import { mediaKey } from "./keys";

/** R2 deletes at most this many keys in one call. */
const DELETE_BATCH = 1000;

/**
 * Forget's part of media (docs/api/media.md "Forget"): every file reserved under one of
 * `profileIds` or pointed to by their events is `erased` at once, in forget's transaction: its
 * type, hash and subject are cleared (its size, who reserved it and its times stay until the row
 * goes), an event pointing to it is `not_found`, and every reference to it goes. Its R2 object is deleted next
 * (`deleteErasedMedia`), then the row. Answers how many files it erased.
 */
export function eraseMedia(sql: SqlStorage, profileIds: readonly string[]): number {
  const profiles = JSON.stringify(profileIds);
  const refs = sql
    .exec<{ media_ref: string }>(
      `SELECT m.media_ref FROM json_each(?1) p CROSS JOIN media m ON m.profile_id = p.value
       UNION SELECT r.media_ref FROM json_each(?1) p CROSS JOIN media_references r ON r.profile_id = p.value`,
      profiles,
    )
    .toArray()
    .map((row) => row.media_ref);
  if (refs.length === 0) return 0;
  const json = JSON.stringify(refs);
  const erased = sql
    .exec(
      `UPDATE media SET status = 'erased', content_type = '', sha256 = '', profile_id = NULL
       WHERE media_ref IN (SELECT value FROM json_each(?)) AND status != 'erased' RETURNING media_ref`,
      json,
    )
    .toArray().length;
  sql.exec("DELETE FROM media_references WHERE media_ref IN (SELECT value FROM json_each(?))", json);
  return erased;
}

/** Files forget erased whose R2 object may still be there. */
export function erasedMedia(sql: SqlStorage): string[] {
  return sql
    .exec<{ media_ref: string }>("SELECT media_ref FROM media WHERE status = 'erased'")
    .toArray()
    .map((row) => row.media_ref);
}

/**
 * The R2 objects of erased files deleted, then their rows (a delete of an object that was never
 * uploaded is no error). A failed delete leaves the rows for the next call; answers how many
 * files are gone.
 */
export async function deleteErasedMedia(sql: SqlStorage, files: R2Bucket, space: string): Promise<number> {
  const refs = erasedMedia(sql);
  for (let from = 0; from < refs.length; from += DELETE_BATCH) {
    const batch = refs.slice(from, from + DELETE_BATCH);
    await files.delete(batch.map((ref) => mediaKey(space, ref)));
    sql.exec(
      "DELETE FROM media WHERE media_ref IN (SELECT value FROM json_each(?)) AND status = 'erased'",
      JSON.stringify(batch),
    );
  }
  return refs.length;
}
