/**
 * An event as the memory compiler reads it: the stored item reduced to what memory is made of.
 * Built from an `items` row (`eventOf` in `session-items.ts`), in `occurred_at` order.
 */
export interface MemoryEvent {
  itemId: string;
  seq: number;
  /** Milliseconds since the epoch: the ordering key of memory. */
  occurredAt: number;
  kind: "message" | "system_event" | "action";
  channel: string | null;
  conversationId: string | null;
  taskId: string | null;
  sourceId: string;
  speakerRole: "customer" | "ai_agent" | "human_agent" | "system" | null;
  /** `content.text`, else `content.transcript`, else null. */
  text: string | null;
  canonicalType: string | null;
  attributes: Record<string, string | number | boolean | null> | null;
  action: {
    operation: string;
    objectType: string;
    objectId: string;
    status: string | null;
    /** Milliseconds since the epoch, or null. */
    dueAt: number | null;
    attributes: Record<string, string | number | boolean | null> | null;
  } | null;
  object: { objectType: string; objectId: string } | null;
}
