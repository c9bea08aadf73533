/**
 * Forget's part of imports (docs/api/imports.md "Forget"): the records of every import that were
 * stored as the subject's items. Answers how many went. The items themselves are erased as every
 * item is; row errors hold no value and name no profile; the files leave R2 when their import ends.
 */
export function eraseImportRows(sql: SqlStorage, profileIds: readonly string[]): number {
  return sql
    .exec("DELETE FROM import_rows WHERE profile_id IN (SELECT value FROM json_each(?)) RETURNING 1", JSON.stringify(profileIds))
    .toArray().length;
}

/**
 * Whether an import sent at or before `requestedAt` may still store records (its file arriving,
 * queued or being read): an erasure requested then waits for it before its receipt
 * (`pendingReceipt`), its handles kept meanwhile, so that the subject's records in that file go in
 * as tombstones, as a batch's do during the erasure, and not as a new subject once the receipt
 * lets the handles go. An import sent after the request is a later write, as a batch would be.
 */
export function importsOpenAt(sql: SqlStorage, requestedAt: number): boolean {
  return (
    sql
      .exec("SELECT 1 FROM imports WHERE created_at <= ? AND status IN ('receiving', 'queued', 'running') LIMIT 1", requestedAt)
      .toArray().length > 0
  );
}
