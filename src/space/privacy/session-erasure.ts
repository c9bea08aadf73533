import { foldSightings } from "../identity/handle-store";
import { queueCompile } from "../memory/compiler";
import { foldPlacements } from "../memory/session-events";
import { foldSessions } from "../memory/sessions";
import { idToken } from "../search/tokens";
import { deleteTimers } from "../timers";

/**
 * What forget and retention both do to sessions and their events (docs/api/privacy.md): an
 * event's content goes and its row stays as a tombstone; a session without events goes with
 * everything compiled from it. The same code for both, so retention erases exactly what forget
 * would of those events.
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
 * Deletes rows of both search tables by rowid, with FTS5's `secure-delete` on for the statement,
 * so that the inverted index keeps no trace of their words (without it, a deleted row's terms stay
 * in the index's segments until they are merged). Off again after: it makes every delete slower,
 * and a compile deletes a session's episode rows each time it rebuilds them.
 */
export function deleteSearchRows(sql: SqlStorage, rowids: readonly number[]): number {
  if (rowids.length === 0) return 0;
  for (const table of ["search_index", "search_stems"]) {
    sql.exec(`INSERT INTO ${table} (${table}, rank) VALUES ('secure-delete', 1)`);
    sql.exec(`DELETE FROM ${table} WHERE rowid IN (SELECT value FROM json_each(?))`, JSON.stringify(rowids));
    sql.exec(`INSERT INTO ${table} (${table}, rank) VALUES ('secure-delete', 0)`);
  }
  return rowids.length;
}

/** Rowids of `search_index` rows matching an FTS5 expression, at most `limit`. */
export function searchRowids(sql: SqlStorage, expression: string, limit: number): number[] {
  return sql
    .exec<{ rowid: number }>("SELECT rowid FROM search_index WHERE search_index MATCH ? LIMIT ?", expression, limit)
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
}

/**
 * Deletes a session whose events are erased, and everything compiled from it: its episode, what
 * its events derived (and the feedback on that), its search rows (episode and facts), model
 * summaries and queues, timers. `conversationId` (forget only): the conversation's verification
 * level and aliases go too.
 */
export function dropSession(
  sql: SqlStorage,
  session: { sessionId: string; profileId: string; conversationId: string | null },
  forget: boolean,
): SessionDropped {
  const { sessionId, profileId } = session;
  const derived = sql
    .exec<{ id: string }>("DELETE FROM derivations WHERE session_id = ? RETURNING id", sessionId)
    .toArray()
    .map((row) => row.id);
  const targets = [...derived, sessionId, ...(session.conversationId ? [session.conversationId] : [])];
  sql.exec("DELETE FROM corrections WHERE target_id IN (SELECT value FROM json_each(?))", JSON.stringify(targets));
  deleteTimers(sql, "promise.due", derived);
  deleteTimers(sql, "session.close", [sessionId]);
  const episodes = sql.exec("DELETE FROM episodes WHERE session_id = ? RETURNING session_id", sessionId).toArray().length;
  const models = sql.exec("DELETE FROM model_summaries WHERE session_id = ? RETURNING session_id", sessionId).toArray().length;
  sql.exec("DELETE FROM model_queue WHERE session_id = ?", sessionId);
  sql.exec("DELETE FROM compile_queue WHERE profile_id = ? AND session_id = ?", profileId, sessionId);
  sql.exec("DELETE FROM compile_inbox WHERE session_id = ?", sessionId);
  const searchRows = deleteSearchRows(sql, searchRowids(sql, `session : "${idToken(sessionId)}"`, 10_000));
  sql.exec("DELETE FROM session_events WHERE session_id = ?", sessionId);
  sql.exec("DELETE FROM sessions WHERE session_id = ?", sessionId);
  if (forget && session.conversationId) {
    sql.exec("DELETE FROM verification_levels WHERE target_kind = 'conversation' AND target_id = ?", session.conversationId);
    sql.exec("DELETE FROM conversation_aliases WHERE conversation_id = ?", session.conversationId);
  }
  return { memoryItems: derived.length + episodes + models, searchRows };
}

/** A session whose older events were erased and newer ones kept is compiled again from those. */
export function recompileSession(sql: SqlStorage, session: { sessionId: string; profileId: string }, now: number): void {
  queueCompile(sql, new Map([[session.sessionId, { profileId: session.profileId, events: 0 }]]), now);
}
