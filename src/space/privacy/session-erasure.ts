import { foldSightings } from "../identity/handle-store";
import { queueCompile } from "../memory/compiler";
import { foldPlacements } from "../memory/session-events";
import { deleteSessions, foldSessions } from "../memory/sessions";
import { idToken } from "../search/tokens";
import { forgetNearWords } from "../search/writes";
import { deleteTimers } from "../timers";

/**
 * What retention does to sessions and their events, one session at a time, and what it shares
 * with forget (docs/api/privacy.md): an event's content goes and its row stays as a tombstone
 * (`tombstoneItems`, both); a session without events goes with everything compiled from it
 * (`dropSession`; forget drops a subject's sessions by the chunk, `erasure-steps.ts`, the same
 * tables); search rows are deleted and their words merged away by the same functions.
 */

/** Writes what batches appended (sessions, placements, sightings) in place, so that erasure reads one table each. */
export function foldInboxes(sql: SqlStorage): void {
  foldSessions(sql);
  foldPlacements(sql);
  foldSightings(sql);
}

/**
 * Tombstones items: a row keeps its `seq`, `item_id`, idempotency key, occurred and arrival
 * times, source and key (what dedup and the receipt's counts need) and nothing of what it said or
 * whom it was about. A replayed batch finds the key and is a duplicate. Returns how many were not
 * tombstones before.
 */
export function tombstoneItems(sql: SqlStorage, seqs: readonly number[]): number {
  if (seqs.length === 0) return 0;
  return sql
    .exec(
      `UPDATE items SET type = 'erased', kind = NULL, channel = NULL, conversation_id = NULL, task_id = NULL,
         claimed_occurred_at = NULL, body = '{}', profile_id = NULL, session_id = NULL
       WHERE seq IN (SELECT value FROM json_each(?)) AND type <> 'erased' RETURNING seq`,
      JSON.stringify(seqs),
    )
    .toArray().length;
}

/**
 * Deletes rows of both search tables by rowid. FTS5 keeps a deleted row's terms in its index
 * segments (as delete markers beside the old entries) until they are merged: `purgeSearchStep`
 * merges them away after the deletes, so that no trace of the rows' words stays.
 */
export function deleteSearchRows(sql: SqlStorage, rowids: readonly number[]): number {
  if (rowids.length === 0) return 0;
  for (const table of ["search_index", "search_stems"]) {
    sql.exec(`DELETE FROM ${table} WHERE rowid IN (SELECT value FROM json_each(?))`, JSON.stringify(rowids));
  }
  return rowids.length;
}

/** Pages one merge step of a search table writes: about a millisecond. */
const PURGE_PAGES = 4;

/**
 * One step of an incremental optimize of both search tables (FTS5 `merge`, a negative page count
 * to begin a cycle, positive to go on): every segment is merged into one, and a deleted row's
 * entries and delete markers cancel out, so its words leave the index. FTS5's `secure-delete`
 * does the same per row as it is deleted, measured at about 0.5 ms a row here (every token of
 * both tables looked up and rewritten in place): 5 s for a subject of 10,000 messages, where the
 * merge costs the index's size once. Answers whether work is left (SQLite's changes grow by 2 or
 * more while a merge writes).
 */
export function purgeSearchStep(sql: SqlStorage, begin: boolean): boolean {
  let more = false;
  for (const table of ["search_index", "search_stems"]) {
    const before = sql.exec<{ n: number }>("SELECT total_changes() AS n").one().n;
    sql.exec(`INSERT INTO ${table} (${table}, rank) VALUES ('merge', ?)`, begin ? -PURGE_PAGES : PURGE_PAGES);
    if (sql.exec<{ n: number }>("SELECT total_changes() AS n").one().n - before >= 2) more = true;
  }
  return more;
}

/** Rowids of `search_index` rows matching an FTS5 expression, after `after`, in order, at most `limit`. */
export function searchRowids(sql: SqlStorage, expression: string, limit: number, after = 0): number[] {
  return sql
    .exec<{ rowid: number }>(
      "SELECT rowid FROM search_index WHERE search_index MATCH ? AND rowid > ? ORDER BY rowid LIMIT ?",
      expression,
      after,
      limit,
    )
    .toArray()
    .map((row) => row.rowid);
}

export interface EventsErased {
  events: number;
  searchRows: number;
  /** Whether events (before `before`) are left in the session. */
  more: boolean;
}

/**
 * Erases the session's oldest `limit` events (of those before `before`): tombstones, their turns'
 * stems, their places in the session. Message rows of the search index are deleted by the caller
 * (forget by profile, retention by time): they carry no session.
 */
export function eraseSessionEvents(sql: SqlStorage, sessionId: string, limit: number, before: number): EventsErased {
  const rows = sql
    .exec<{ occurred_at: number; seq: number }>(
      "SELECT occurred_at, seq FROM session_events WHERE session_id = ? AND occurred_at < ? ORDER BY occurred_at, seq LIMIT ?",
      sessionId,
      before,
      limit,
    )
    .toArray();
  const last = rows.at(-1);
  if (!last) return { events: 0, searchRows: 0, more: false };
  const seqs = JSON.stringify(rows.map((row) => row.seq));
  const events = tombstoneItems(
    sql,
    rows.map((row) => row.seq),
  );
  const turns = sql.exec("DELETE FROM search_turns WHERE seq IN (SELECT value FROM json_each(?)) RETURNING seq", seqs).toArray();
  sql.exec(
    "DELETE FROM session_events WHERE session_id = ? AND (occurred_at, seq) <= (?, ?)",
    sessionId,
    last.occurred_at,
    last.seq,
  );
  return { events, searchRows: turns.length, more: rows.length === limit };
}

export interface SessionDropped {
  memoryItems: number;
  searchRows: number;
  /** Whether the session is gone; else what it derived is not all deleted yet (call again). */
  done: boolean;
}

/**
 * Deletes a session whose events are erased, and everything compiled from it: what its events
 * derived (and the feedback on that) and its search rows (episode and facts), `limit` of each a
 * call (a long conversation derives thousands), then its episode, model summaries and queues,
 * timers and the session. `forget`: the conversation's verification level and aliases go too.
 */
export function dropSession(
  sql: SqlStorage,
  session: { sessionId: string; profileId: string; conversationId: string | null },
  forget: boolean,
  limit: number,
): SessionDropped {
  const { sessionId, profileId } = session;
  const derived = sql
    .exec<{ id: string }>(
      "DELETE FROM derivations WHERE rowid IN (SELECT rowid FROM derivations WHERE session_id = ? LIMIT ?) RETURNING id",
      sessionId,
      limit,
    )
    .toArray()
    .map((row) => row.id);
  sql.exec("DELETE FROM corrections WHERE target_id IN (SELECT value FROM json_each(?))", JSON.stringify(derived));
  deleteTimers(sql, "promise.due", derived);
  const searchRows = deleteSearchRows(sql, searchRowids(sql, `session : "${idToken(sessionId)}"`, limit));
  if (derived.length === limit || searchRows === limit) return { memoryItems: derived.length, searchRows, done: false };
  const targets = [sessionId, ...(session.conversationId ? [session.conversationId] : [])];
  sql.exec("DELETE FROM corrections WHERE target_id IN (SELECT value FROM json_each(?))", JSON.stringify(targets));
  deleteTimers(sql, "session.close", [sessionId]);
  const episodes = sql.exec("DELETE FROM episodes WHERE session_id = ? RETURNING session_id", sessionId).toArray().length;
  const models = sql.exec("DELETE FROM model_summaries WHERE session_id = ? RETURNING session_id", sessionId).toArray().length;
  sql.exec("DELETE FROM model_queue WHERE session_id = ?", sessionId);
  sql.exec("DELETE FROM compile_queue WHERE profile_id = ? AND session_id = ?", profileId, sessionId);
  sql.exec("DELETE FROM compile_inbox WHERE session_id = ?", sessionId);
  sql.exec("DELETE FROM session_events WHERE session_id = ?", sessionId);
  deleteSessions(sql, [sessionId]);
  if (forget && session.conversationId) {
    sql.exec("DELETE FROM verification_levels WHERE target_kind = 'conversation' AND target_id = ?", session.conversationId);
    sql.exec("DELETE FROM conversation_aliases WHERE conversation_id = ?", session.conversationId);
  }
  return { memoryItems: derived.length + episodes + models, searchRows, done: true };
}

/**
 * A session whose older events were erased and newer ones kept is compiled again from those. What
 * the index holds of the erased events goes first, before the run's purge: the session's episode
 * and facts (the compile indexes them anew), and what rows indexed before migration 0037 kept of
 * them as near words (`forgetNearWords`).
 */
export function recompileSession(sql: SqlStorage, session: { sessionId: string; profileId: string }, now: number): void {
  const derived = `session : "${idToken(session.sessionId)}"`;
  let deleted: number;
  do deleted = deleteSearchRows(sql, searchRowids(sql, derived, DERIVED_ROWS));
  while (deleted === DERIVED_ROWS);
  forgetNearWords(sql, session.sessionId);
  queueCompile(sql, new Map([[session.sessionId, { profileId: session.profileId, events: 0 }]]), now);
}

/** Derived search rows deleted per statement when a session is compiled again. */
const DERIVED_ROWS = 500;
