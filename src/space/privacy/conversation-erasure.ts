import { conversationProfiles } from "../memory/sessions";
import { tombstoneItems } from "./session-erasure";

/** A conversation or task of the subject's sessions. */
export interface Conversation {
  kind: "conversation" | "task";
  id: string;
}

/**
 * The conversations and tasks of sessions forget drops: `own`, those only the subject's profiles
 * have sessions in; `shared`, those another customer has a session in too (a group chat, a
 * call passed between two customers), whose aliases, levels, outcome feedback and control items
 * stay theirs.
 */
export function conversationsOf(
  sql: SqlStorage,
  receiptId: string,
  sessions: readonly { kind: Conversation["kind"]; conversation_id: string | null }[],
): { own: Conversation[]; shared: Conversation[] } {
  const subject = new Set(
    sql
      .exec<{ profile_id: string }>("SELECT profile_id FROM erasure_profiles WHERE receipt_id = ?", receiptId)
      .toArray()
      .map((row) => row.profile_id),
  );
  const seen = new Map<string, Conversation>();
  for (const { kind, conversation_id: id } of sessions) if (id !== null) seen.set(`${kind} ${id}`, { kind, id });
  const own: Conversation[] = [];
  const shared: Conversation[] = [];
  for (const conversation of seen.values()) {
    const others = conversationProfiles(sql, conversation.kind, conversation.id).some((profile) => !subject.has(profile));
    (others ? shared : own).push(conversation);
  }
  return { own, shared };
}

/** The items that end or hand over sessions: they name a conversation or task, not a profile. */
const CONTROL = "type IN ('handoff', 'conversation.ended', 'task.ended')";

/**
 * The control items of the subject's conversations and tasks (by their ids and, for a
 * conversation, its aliases): in its own, tombstoned like its events; in shared ones, kept for
 * the others without their free text (`reason`), which may name the subject. Answers how many it
 * tombstoned.
 */
export function eraseSessionControls(sql: SqlStorage, own: readonly Conversation[], shared: readonly Conversation[]): number {
  const seqs = (conversations: readonly Conversation[]) => controlItems(sql, conversations);
  const scrubbed = seqs(shared);
  if (scrubbed.length > 0) {
    sql.exec(
      "UPDATE items SET body = json_remove(body, '$.reason') WHERE seq IN (SELECT value FROM json_each(?))",
      JSON.stringify(scrubbed),
    );
  }
  return tombstoneItems(sql, seqs(own));
}

function controlItems(sql: SqlStorage, conversations: readonly Conversation[]): number[] {
  if (conversations.length === 0) return [];
  const ids = (kind: Conversation["kind"]) => conversations.filter((c) => c.kind === kind).map((c) => c.id);
  const named = JSON.stringify([
    ...ids("conversation"),
    ...sql
      .exec<{ alias: string }>(
        "SELECT alias FROM conversation_aliases WHERE conversation_id IN (SELECT value FROM json_each(?))",
        JSON.stringify(ids("conversation")),
      )
      .toArray()
      .map((row) => row.alias),
  ]);
  return sql
    .exec<{ seq: number }>(
      `SELECT seq FROM items WHERE ${CONTROL} AND conversation_id IN (SELECT value FROM json_each(?1))
       UNION SELECT seq FROM items WHERE ${CONTROL} AND task_id IN (SELECT value FROM json_each(?2))`,
      named,
      JSON.stringify(ids("task")),
    )
    .toArray()
    .map((row) => row.seq);
}

/**
 * Retention's part: up to `limit` items that ended or handed over sessions before `cutoff`,
 * tombstoned (their `reason` is content like an event's), oldest first through their partial
 * index by time (`items_control_time`), so no newer one is read; a tombstone leaves it. Answers
 * how many.
 */
export function eraseControlsBefore(sql: SqlStorage, cutoff: number, limit: number): number {
  const seqs = sql
    .exec<{ seq: number }>(
      `SELECT seq FROM items INDEXED BY items_control_time WHERE ${CONTROL} AND occurred_at < ? ORDER BY occurred_at LIMIT ?`,
      cutoff,
      limit,
    )
    .toArray()
    .map((row) => row.seq);
  return tombstoneItems(sql, seqs);
}
