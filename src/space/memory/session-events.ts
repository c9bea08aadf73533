import type { BatchItem } from "../../contract/batch";
import type { MemoryEvent } from "./memory-event";

interface ItemRow {
  item_id: string;
  seq: number;
  occurred_at: number;
  source_id: string;
  body: string;
  [column: string]: SqlStorageValue;
}

/**
 * The events of one session in memory order (`occurred_at`, then arrival). Reads `items` (owned
 * by `intake.ts`) through its `items_session` index.
 */
export function sessionEvents(sql: SqlStorage, sessionId: string): MemoryEvent[] {
  return sql
    .exec<ItemRow>(
      "SELECT item_id, seq, occurred_at, source_id, body FROM items WHERE session_id = ? AND type = 'event' ORDER BY occurred_at, seq",
      sessionId,
    )
    .toArray()
    .map(eventOf);
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
