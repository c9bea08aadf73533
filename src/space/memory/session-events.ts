import type { BatchItem } from "../../contract/batch";
import { foldInboxesWithin } from "../timers";
import type { MemoryEvent } from "./memory-event";

export interface ItemRow {
  item_id: string;
  seq: number;
  occurred_at: number;
  source_id: string;
  body: string;
  [column: string]: SqlStorageValue;
}

/**
 * A session's events are found through `session_events` (its events in memory order) and
 * `item_placements` (those placed since the last fold), both owned here; the rows are `items`
 * (owned by `intake.ts`), read by `seq`.
 */

/** `?1` a session id: the `seq` of its events, folded or not (a union: ordered by whoever reads it). */
const SEQS_OF_SESSION = `SELECT seq, occurred_at FROM session_events WHERE session_id = ?1
  UNION ALL SELECT seq, occurred_at FROM item_placements WHERE session_id = ?1`;

/** The events of one session in memory order (`occurred_at`, then arrival). */
export function sessionEvents(sql: SqlStorage, sessionId: string): MemoryEvent[] {
  return sql
    .exec<ItemRow>(
      `SELECT i.item_id, i.seq, i.occurred_at, i.source_id, i.body FROM (${SEQS_OF_SESSION}) e
       CROSS JOIN items i ON i.seq = e.seq ORDER BY e.occurred_at, e.seq`,
      sessionId,
    )
    .toArray()
    .map(eventOf);
}

/** The latest `limit` events of a session, newest first, as stored. */
export function latestSessionEvents(sql: SqlStorage, sessionId: string, limit: number): ItemRow[] {
  return sql
    .exec<ItemRow>(
      `SELECT i.item_id, i.seq, i.occurred_at, i.source_id, i.body FROM (
         SELECT * FROM (SELECT seq, occurred_at FROM session_events WHERE session_id = ?1 ORDER BY occurred_at DESC, seq DESC LIMIT ?2)
         UNION ALL SELECT seq, occurred_at FROM item_placements WHERE session_id = ?1) e
       CROSS JOIN items i ON i.seq = e.seq ORDER BY e.occurred_at DESC, e.seq DESC LIMIT ?2`,
      sessionId,
      limit,
    )
    .toArray();
}

/** The sources of a session's events. */
export function sessionSources(sql: SqlStorage, sessionId: string): string[] {
  return sql
    .exec<{ source_id: string }>(
      `SELECT DISTINCT i.source_id FROM (${SEQS_OF_SESSION}) e CROSS JOIN items i ON i.seq = e.seq`,
      sessionId,
    )
    .toArray()
    .map((row) => row.source_id);
}

/**
 * Records where the batch's events went, once its `stored` items are written (the last rows of
 * `items`): appended, folded into `session_events` within `INBOX_FOLD_MS`.
 */
export function placeEvents(sql: SqlStorage, stored: number, now: number): void {
  if (stored === 0) return;
  sql.exec(
    `INSERT INTO item_placements (seq, session_id, occurred_at)
     SELECT seq, session_id, occurred_at FROM (SELECT seq, session_id, occurred_at, type FROM items ORDER BY seq DESC LIMIT ?)
     WHERE session_id IS NOT NULL AND type = 'event' ORDER BY seq`,
    stored,
  );
  foldInboxesWithin(sql, now);
}

/** Moves the placements into `session_events`, in its key order, and empties them. */
export function foldPlacements(sql: SqlStorage): void {
  sql.exec(
    `INSERT OR IGNORE INTO session_events (session_id, occurred_at, seq)
     SELECT session_id, occurred_at, seq FROM item_placements WHERE true ORDER BY session_id, occurred_at, seq`,
  );
  sql.exec("DELETE FROM item_placements");
}

/** A stored event item as memory reads it. */
export function eventOf(row: {
  item_id: string;
  seq: number;
  occurred_at: number;
  source_id: string;
  body: string;
}): MemoryEvent {
  const item = JSON.parse(row.body) as Extract<BatchItem, { type: "event" }>;
  const action = item.kind === "action" ? item.action : null;
  return {
    itemId: row.item_id,
    seq: row.seq,
    occurredAt: row.occurred_at,
    kind: item.kind,
    channel: item.channel ?? null,
    conversationId: item.conversation_id ?? null,
    taskId: item.task_id ?? null,
    sourceId: row.source_id,
    speakerRole: item.speaker?.role ?? null,
    text: item.content?.text ?? item.content?.transcript ?? null,
    canonicalType: item.canonical_type ?? null,
    attributes: item.attributes ?? null,
    action: action && {
      operation: action.operation,
      objectType: action.object_type,
      objectId: action.object_id,
      status: action.status ?? null,
      dueAt: action.due_at ? Date.parse(action.due_at) : null,
      attributes: action.attributes ?? null,
    },
    object: item.object ? { objectType: item.object.object_type, objectId: item.object.object_id } : null,
  };
}
