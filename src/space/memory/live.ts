import type { BatchItem } from "../../contract/batch";

/** An event of an open session as context answers it in `live` (DESIGN 3.8). */
export interface LiveItem {
  event_id: string;
  occurred_at: string;
  channel: string | null;
  conversation_id: string | null;
  speaker_role: string | null;
  text: string | null;
}

/** A live item with where it lives: its session and the profile that session belongs to. */
export interface LiveEntry {
  sessionId: string;
  profileId: string;
  occurredAt: number;
  seq: number;
  item: LiveItem;
}

export function liveItemOf(itemId: string, occurredAt: number, item: Extract<BatchItem, { type: "event" }>): LiveItem {
  return {
    event_id: itemId,
    occurred_at: new Date(occurredAt).toISOString(),
    channel: item.channel ?? null,
    conversation_id: item.conversation_id ?? null,
    speaker_role: item.speaker?.role ?? null,
    text: item.content?.text ?? item.content?.transcript ?? null,
  };
}
