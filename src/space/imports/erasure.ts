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
