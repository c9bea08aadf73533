import { foldInboxesWithin } from "../timers";

/**
 * Every context etag the space answered, per root profile, and when that profile next received
 * items (`served_contexts`): what an agent's `context_stamp` is judged against.
 *
 * A context read writes nothing: a write would hold its answer until the commit is on disk (about
 * as long again as the rest of the read). The etags it answered wait in memory, per database, and
 * are written by the first of: the inbox fold (within `INBOX_FOLD_MS`), the next batch or
 * feedback (before it judges stamps or supersedes anything). A restart in between forgets them:
 * a stamp naming one counts as `unknown`. It is measurement, never customer data.
 */
const unwritten = new WeakMap<SqlStorage, Map<string, { profileId: string; servedAt: number }>>();

/** Records that `etag` was answered for `profileId` (a root) at `now`, `unchanged` and `304` included. */
export function recordServedContext(sql: SqlStorage, etag: string, profileId: string, now: number): void {
  let pending = unwritten.get(sql);
  if (!pending) {
    pending = new Map();
    unwritten.set(sql, pending);
  }
  if (pending.size === 0) foldInboxesWithin(sql, now);
  if (!pending.has(etag)) pending.set(etag, { profileId, servedAt: now });
}

/**
 * Writes the etags answered since the last write, in one statement. An etag answered again after
 * it was marked superseded is current after all (the items since changed nothing the context
 * holds: rare, since any item naming a handle moves its `last_seen`), so its mark is cleared;
 * one present and current is left as it is.
 */
export function writeServedContexts(sql: SqlStorage): void {
  const pending = unwritten.get(sql);
  if (!pending || pending.size === 0) return;
  sql.exec(
    `INSERT INTO served_contexts (etag, profile_id, served_at, superseded_at)
     SELECT s.value ->> 0, s.value ->> 1, s.value ->> 2, NULL FROM json_each(?) s WHERE true
     ON CONFLICT (etag) DO UPDATE SET superseded_at = NULL WHERE superseded_at IS NOT NULL`,
    JSON.stringify([...pending].map(([etag, { profileId, servedAt }]) => [etag, profileId, servedAt])),
  );
  pending.clear();
}

/**
 * Marks superseded at `now` the current served etags of `profileIds` (the profiles a write
 * stored items for), with the profiles merged into the same root (an etag was recorded for the
 * root of its time, which a merge since may have made a member). Set-based: one statement over
 * the index of current etags, none when that index is empty (a space nobody reads from).
 */
export function supersedeServedContexts(sql: SqlStorage, profileIds: ReadonlySet<string>, now: number): void {
  writeServedContexts(sql);
  if (profileIds.size === 0) return;
  if (sql.exec("SELECT 1 FROM served_contexts WHERE superseded_at IS NULL LIMIT 1").toArray().length === 0) return;
  sql.exec(
    `UPDATE served_contexts SET superseded_at = ?
     WHERE superseded_at IS NULL AND profile_id IN (
       SELECT member.profile_id FROM profiles member WHERE member.root_id IN (
         SELECT p.root_id FROM json_each(?) written JOIN profiles p ON p.profile_id = written.value))`,
    now,
    JSON.stringify([...profileIds]),
  );
}

/** Drops the unwritten etags of erased profiles (privacy/erasures.ts): the erasure deletes the written ones. */
export function forgetServedContexts(sql: SqlStorage, profileIds: readonly string[]): void {
  const pending = unwritten.get(sql);
  if (!pending) return;
  const erased = new Set(profileIds);
  for (const [etag, { profileId }] of pending) if (erased.has(profileId)) pending.delete(etag);
}
