/**
 * Every context etag the space answered, per root profile, and when that profile next received
 * items (`served_contexts`): what an agent's `context_stamp` is judged against. Both writes are
 * on benchmarked paths (a context read, a batch), so each is one statement.
 */

/**
 * Records that `etag` was answered for `profileId` (a root) at `now`: on every context answer,
 * `unchanged` and `304` included, since the etag is still the profile's current one. An etag
 * answered again after it was marked superseded is current after all (the items since did not
 * change the context: an `identify` of handles it already had, a `verify` that raised nothing),
 * so its mark is cleared. When present and current the statement writes nothing.
 */
export function recordServedContext(sql: SqlStorage, etag: string, profileId: string, now: number): void {
  sql.exec(
    `INSERT INTO served_contexts (etag, profile_id, served_at, superseded_at) VALUES (?, ?, ?, NULL)
     ON CONFLICT (etag) DO UPDATE SET superseded_at = NULL WHERE superseded_at IS NOT NULL`,
    etag,
    profileId,
    now,
  );
}

/**
 * Marks superseded at `now` the current served etags of every profile that the batch's last
 * `stored` items belong to, with the profiles merged into the same root (an etag was recorded for
 * the root of its time, which a merge since may have made a member). Set-based: one statement
 * over the index `(profile_id, superseded_at)`.
 */
export function supersedeServedContexts(sql: SqlStorage, stored: number, now: number): void {
  sql.exec(
    `UPDATE served_contexts SET superseded_at = ?
     WHERE superseded_at IS NULL AND profile_id IN (
       SELECT member.profile_id FROM profiles member WHERE member.root_id IN (
         SELECT p.root_id FROM (SELECT profile_id FROM items ORDER BY seq DESC LIMIT ?) batch
         JOIN profiles p ON p.profile_id = batch.profile_id))`,
    now,
    stored,
  );
}
