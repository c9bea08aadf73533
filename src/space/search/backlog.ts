import type { BatchItem } from "../../contract/batch";
import { erasingProfiles } from "../privacy/arrivals";
import { deleteTimers, setTimer, setTimerOnce } from "../timers";
import { indexMessages, type StoredMessage } from "./writes";

/**
 * Messages stored and not indexed yet (`search_backlog`, migration 0031; docs/api/search.md
 * "Indexing after the answer"). A batch stores its messages and queues them here, a row of ids
 * each; the `search.index` timer indexes them oldest first in steps of the alarm, which give way
 * to writes that saturate the object while fewer than `INDEX_BACKLOG_CAP` wait. A search first
 * indexes what waits of what it reads (`catchUpIndex`), so it never misses a committed message;
 * so does an erasure or a retention run before it looks at the index. A row leaves the backlog in
 * the transaction that indexes it: a restart mid-backlog indexes each message once.
 */
export const INDEX_STEP_ROWS = 500;
/**
 * And at most this many bytes of items (a message may hold a megabyte), one item at least: what
 * a step reads and writes in one statement stays far below SQLite's limit on a value, and the
 * object's memory bounded.
 */
export const INDEX_STEP_BYTES = 1_000_000;
/**
 * Above this many waiting messages the index steps no longer give way: what a search may have to
 * index first stays bounded (about a second of work on the bench's machine).
 */
export const INDEX_BACKLOG_CAP = 5_000;
/** How long a step that gives way waits before it looks again. */
export const INDEX_YIELD_MS = 250;

/** A message a batch stored, as the backlog takes it. */
export interface QueuedMessage {
  seq: number;
  profileId: string;
}

/** Queues a batch's stored messages (with a text or a transcript) and has a step due at once. */
export function queueMessages(sql: SqlStorage, messages: readonly QueuedMessage[], now: number): void {
  if (messages.length === 0) return;
  sql.exec(
    "INSERT INTO search_backlog (seq, profile_id) SELECT value ->> 0, value ->> 1 FROM json_each(?)",
    JSON.stringify(messages.map((message) => [message.seq, message.profileId])),
  );
  setTimerOnce(sql, { kind: "search.index", key: "", dueAt: now, payload: null });
}

/**
 * One step of the `search.index` timer: the oldest `INDEX_STEP_ROWS` waiting messages, unless
 * writes saturate the object and fewer than `INDEX_BACKLOG_CAP` wait (then it looks again
 * `INDEX_YIELD_MS` later). Due again at once while messages wait.
 */
export function indexStep(sql: SqlStorage, now: number, saturated: boolean): void {
  if (saturated && !backlogAtLeast(sql, INDEX_BACKLOG_CAP)) {
    setTimer(sql, { kind: "search.index", key: "", dueAt: now + INDEX_YIELD_MS, payload: null });
    return;
  }
  const waiting = sql
    .exec<Waiting>(
      "SELECT b.seq, coalesce(octet_length(i.body), 0) AS bytes FROM search_backlog b LEFT JOIN items i ON i.seq = b.seq ORDER BY b.seq LIMIT ?",
      INDEX_STEP_ROWS,
    )
    .toArray();
  const [seqs = []] = stepsOf(waiting);
  indexQueued(sql, seqs);
  if (seqs.length < waiting.length || waiting.length === INDEX_STEP_ROWS) {
    setTimer(sql, { kind: "search.index", key: "", dueAt: now, payload: null });
  }
}

interface Waiting {
  seq: number;
  bytes: number;
  [column: string]: SqlStorageValue;
}

/** Waiting messages (in `seq` order) cut into steps of `INDEX_STEP_ROWS` and `INDEX_STEP_BYTES` at most, one message at least. */
function stepsOf(waiting: readonly Waiting[]): number[][] {
  const steps: number[][] = [];
  let step: number[] = [];
  let bytes = 0;
  for (const row of waiting) {
    if (step.length > 0 && (step.length === INDEX_STEP_ROWS || bytes + row.bytes > INDEX_STEP_BYTES)) {
      steps.push(step);
      step = [];
      bytes = 0;
    }
    step.push(row.seq);
    bytes += row.bytes;
  }
  if (step.length > 0) steps.push(step);
  return steps;
}

/**
 * Indexes what waits of the profiles `members` (null: of the whole space), before a read of the
 * index: in `seq` order, so that each message finds the turns before it already remembered.
 */
export function catchUpIndex(sql: SqlStorage, members: readonly string[] | null): void {
  const waiting = sql
    .exec<Waiting>(
      `SELECT b.seq, coalesce(octet_length(i.body), 0) AS bytes FROM search_backlog b LEFT JOIN items i ON i.seq = b.seq
       ${members === null ? "" : "WHERE b.profile_id IN (SELECT value FROM json_each(?))"} ORDER BY b.seq`,
      ...(members === null ? [] : [JSON.stringify(members)]),
    )
    .toArray();
  for (const seqs of stepsOf(waiting)) indexQueued(sql, seqs);
  // Nothing waits any more: no step is due.
  if (members === null) deleteTimers(sql, "search.index", [""]);
}

/** How many messages wait (operators, the benchmark). */
export function indexBacklogLength(sql: SqlStorage): number {
  return sql.exec<{ n: number }>("SELECT count(*) AS n FROM search_backlog").one().n;
}

function backlogAtLeast(sql: SqlStorage, rows: number): boolean {
  return sql.exec("SELECT 1 FROM search_backlog LIMIT 1 OFFSET ?", rows - 1).toArray().length > 0;
}

interface QueuedRow {
  seq: number;
  item_id: string | null;
  type: string | null;
  kind: string | null;
  profile_id: string | null;
  source_id: string | null;
  session_id: string | null;
  occurred_at: number | null;
  channel: string | null;
  conversation_id: string | null;
  body: string | null;
  [column: string]: SqlStorageValue;
}

/**
 * Indexes the queued messages `seqs` (in order) from their items, and takes them off the backlog.
 * An item erased since (a tombstone, or gone with retention) or of a subject being erased is
 * not indexed.
 */
function indexQueued(sql: SqlStorage, seqs: readonly number[]): void {
  if (seqs.length === 0) return;
  const list = JSON.stringify(seqs);
  const rows = sql
    .exec<QueuedRow>(
      `SELECT j.value AS seq, i.item_id, i.type, i.kind, i.profile_id, i.source_id, i.session_id, i.occurred_at, i.channel,
         i.conversation_id, i.body
       FROM json_each(?) j LEFT JOIN items i ON i.seq = j.value ORDER BY j.value`,
      list,
    )
    .toArray();
  const erasing = erasingProfiles(sql);
  const messages: StoredMessage[] = [];
  for (const row of rows) {
    if (row.type !== "event" || row.kind !== "message" || row.profile_id === null || erasing.has(row.profile_id)) continue;
    const content = (JSON.parse(row.body ?? "{}") as Extract<BatchItem, { type: "event" }>).content;
    messages.push({
      seq: row.seq,
      itemId: row.item_id ?? "",
      profileId: row.profile_id,
      sourceId: row.source_id ?? "",
      sessionId: row.session_id,
      occurredAt: row.occurred_at ?? 0,
      channel: row.channel,
      conversationId: row.conversation_id,
      text: content?.text ?? null,
      transcript: content?.transcript ?? null,
    });
  }
  indexMessages(sql, messages);
  sql.exec("DELETE FROM search_backlog WHERE seq IN (SELECT value FROM json_each(?))", list);
}
