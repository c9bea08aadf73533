import { getTableColumns } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { type BatchAnswer, BatchEnvelopeSchema, type BatchItem } from "../contract/batch";
import type { Scope } from "../contract/common";
import { DEFAULT_CLOCK_TOLERANCE_S, type SpaceConfigValues } from "../contract/config";
import type { FeedbackItem } from "../contract/feedback";
import { describeIssues } from "../http/issues";
import { Problem } from "../http/problem";
import { uuidv7 } from "../ids";
import type { Handle } from "./identity/handles";
import { applyIdentity } from "./identity/intake";
import { Resolution } from "./identity/resolution";
import { requestSuggestions } from "./identity/suggestion-job";
import type { Transaction } from "./implicit-transaction";
import { checkItem } from "./item-checks";
import { isAgentTurn, measureBatch } from "./measurement/context-use";
import { MediaCheck, recordReferences } from "./media/references";
import { type LiveChanges, MemoryIntake } from "./memory/intake";
import { placeEvents } from "./memory/session-events";
import { arrivalsUnderErasure } from "./privacy/arrivals";
import { countArrivals } from "./privacy/erasures";
import { noteMentions } from "./privacy/mentions";
import type { SourceRecord } from "./replica";
import { items } from "./schema";
import { type QueuedMessage, queueMessages } from "./search/backlog";

type Db = DrizzleSqliteDODatabase<Record<string, unknown>>;

export interface IntakeCaller {
  keyId: string;
  sourceId: string;
  scopes: readonly Scope[];
  test: boolean;
  source: SourceRecord;
}

/** Times before this are never real: they are corrected like times in the future (DESIGN 3.4). */
const EARLIEST_MS = Date.UTC(2000, 0, 1);

interface Accepted {
  index: number;
  item: BatchItem;
  json: string;
  handles: Handle[];
  occurredAt: number;
  claimedOccurredAt: number | null;
}

/**
 * Stores a batch (SPEC POST /v1/batch). The envelope is checked first and refuses the whole
 * batch; then each item alone. Accepted items are written in `occurred_at` order, in chunks of
 * `chunkItems` (`RequestPacing` decides; whole by default), each its own transaction: the generator
 * yields each chunk's live changes once it is committed, and whether more follow, so that the
 * object can let other requests in before the next; it returns the answer when all are stored.
 * An `idempotency_key` already stored, before the batch or by an item earlier in it, is a
 * duplicate: counted, never stored twice (a batch cut short is safe to send again). An item whose
 * key only came with an earlier item that was refused is judged on its own. `media` says what the
 * batch's events may point to (read before the batch; each chunk reads its files again).
 */
export function* ingestBatch(
  intake: Intake,
  caller: IntakeCaller,
  body: unknown,
  now: number,
  config: SpaceConfigValues,
  chunkItems = Number.POSITIVE_INFINITY,
  media: MediaCheck = MediaCheck.none,
): Generator<{ live: LiveChanges; more: boolean }, BatchAnswer, void> {
  const envelope = BatchEnvelopeSchema.safeParse(body);
  if (!envelope.success) {
    throw new Problem("invalid_input", describeIssues(BatchEnvelopeSchema, envelope.error.issues));
  }

  const answer: BatchAnswer = { accepted: 0, duplicates: 0, errors: [] };
  // Items of one key keep together, in the order sent, where the first of them falls: the first
  // that is stored makes the rest duplicates (`storeChunk`), and one refused leaves the next its own.
  const firstOfKey = new Map<string, Accepted>();
  const placed: { candidate: Accepted; lead: Accepted }[] = [];
  envelope.data.items.forEach((raw, index) => {
    const check = checkItem(raw, caller.scopes, caller.source);
    if (!check.ok) {
      answer.errors.push({ index, code: check.code, detail: check.detail });
      return;
    }
    const { item, json, handles } = check;
    const candidate = { index, item, json, handles, ...occurrence(item, now, config) };
    const lead = firstOfKey.get(item.idempotency_key);
    if (!lead) firstOfKey.set(item.idempotency_key, candidate);
    placed.push({ candidate, lead: lead ?? candidate });
  });
  placed.sort(
    (a, b) => a.lead.occurredAt - b.lead.occurredAt || a.lead.index - b.lead.index || a.candidate.index - b.candidate.index,
  );
  const candidates = placed.map(({ candidate }) => candidate);

  // Contexts are superseded once, with the last chunk: every agent turn of the batch is judged
  // before its own batch supersedes anything (see `measureBatch`).
  const written = new Set<string>();
  const keys = new Set<string>();
  for (let from = 0; from < candidates.length; from += chunkItems) {
    const chunk = candidates.slice(from, from + chunkItems);
    const last = from + chunkItems >= candidates.length;
    const live = intake.turn(() => {
      const chunkMedia = media.forChunk(
        intake.sql,
        chunk.map(({ item }) => item),
      );
      return storeChunk(intake, caller, chunk, { now, config, media: chunkMedia }, answer, { profiles: written, keys }, last);
    });
    yield { live, more: !last };
  }
  answer.errors.sort((a, b) => a.index - b.index);
  return answer;
}

/**
 * One chunk of a batch, in its transaction; counts into `answer`, adds its profiles to
 * `written.profiles` and the keys it stored to `written.keys` (a later item with one is a duplicate).
 */
function storeChunk(
  intake: Intake,
  caller: IntakeCaller,
  candidates: readonly Accepted[],
  { now, config, media }: { now: number; config: SpaceConfigValues; media: MediaCheck },
  answer: BatchAnswer,
  { profiles: written, keys: storedInBatch }: { profiles: Set<string>; keys: Set<string> },
  last: boolean,
): LiveChanges {
  const resolution = new Resolution(intake.sql, caller.sourceId, now);
  resolution.prefetch(candidates.flatMap((candidate) => candidate.handles));
  const memory = new MemoryIntake(intake.sql, config, now);
  memory.prefetch(candidates.map((candidate) => candidate.item));
  const stored = storedKeys(
    intake,
    candidates.map((candidate) => candidate.item.idempotency_key),
  );
  const resolved: (Accepted & { itemId: string; profileId: string | null })[] = [];
  // A subject being erased: its items go in as tombstones and nothing else (privacy/arrivals.ts).
  const erasing = arrivalsUnderErasure(intake.sql, candidates);
  const tombstones: ItemRow[] = [];
  const arrivals = new Map<string, number>();
  for (const [index, candidate] of candidates.entries()) {
    // Checked first, so that a duplicate has no identity effects.
    const key = candidate.item.idempotency_key;
    if (stored.has(key) || storedInBatch.has(key)) {
      answer.duplicates++;
      continue;
    }
    const refused = media.refusal(candidate.item);
    if (refused) {
      answer.errors.push({ index: candidate.index, ...refused });
      continue;
    }
    const itemId = uuidv7(now);
    const erasure = erasing.get(index);
    if (erasure !== undefined) {
      tombstones.push(tombstoneOf(row(candidate, caller, now, itemId, null, null)));
      arrivals.set(erasure, (arrivals.get(erasure) ?? 0) + 1);
      storedInBatch.add(key);
      continue;
    }
    try {
      const profileId = applyIdentity(
        intake.sql,
        resolution,
        { ...candidate, itemId },
        caller.sourceId,
        now,
        config.identity_traits,
      );
      resolved.push({ ...candidate, itemId, profileId });
      storedInBatch.add(key);
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      answer.errors.push({ index: candidate.index, code: error.code, detail: error.detail ?? error.code });
    }
  }
  memory.prefetchSessions(resolved);
  const rows = resolved.map((candidate) => {
    const { item, itemId, profileId, occurredAt } = candidate;
    const sessionId = memory.place(item, profileId, itemId, occurredAt);
    return row(candidate, caller, now, itemId, profileId, sessionId);
  });
  answer.accepted += rows.length + tombstones.length;
  // Before the chunk's other rows: `placeEvents` reads those as the last ones stored.
  insertItems(intake, tombstones);
  countArrivals(intake.sql, arrivals);
  const seqs = insertItems(intake, rows);
  recordReferences(intake.sql, resolved);
  placeEvents(intake.sql, rows.length, now);
  noteMentions(
    intake.sql,
    resolved.flatMap(({ item, itemId, profileId, handles }) => {
      const seq = seqs.get(itemId);
      const namesProfile = item.type === "event" && item.subject !== undefined && "profile_id" in item.subject;
      return seq === undefined ? [] : [{ seq, profileId, handles, namesProfile }];
    }),
    (handle) => resolution.recordOf(handle),
  );
  resolution.finish();
  const live = memory.finish(seqs);
  queueMessages(intake.sql, messagesOf(resolved, rows, seqs), now);
  const turns = caller.test
    ? []
    : resolved.flatMap(({ item, profileId, occurredAt }) =>
        profileId !== null && item.type === "event" && isAgentTurn(item)
          ? [{ sourceId: caller.sourceId, occurredAt, profileId, stamp: item.context_stamp ?? null }]
          : [],
      );
  for (const { profileId } of resolved) if (profileId !== null) written.add(profileId);
  measureBatch(intake.sql, turns, last ? written : new Set(), now);
  if (rows.length > 0) requestSuggestions(intake.sql, now);
  return live;
}

/** The stored messages of a chunk with something to search (a text or a transcript), in `seq` order (`rows` are `resolved`'s, in order). */
function messagesOf(
  resolved: readonly { item: BatchItem }[],
  rows: readonly ItemRow[],
  seqs: ReadonlyMap<string, number>,
): QueuedMessage[] {
  return resolved.flatMap(({ item }, index) => {
    const row = rows[index];
    const seq = row && seqs.get(row.itemId);
    if (item.type !== "event" || item.kind !== "message" || !row || seq === undefined || row.profileId === null) return [];
    if (!item.content.text && !item.content.transcript) return [];
    return [{ seq, profileId: row.profileId }];
  });
}

/** When an item (of a batch or of feedback) happened: its `occurred_at` if plausible, else the arrival time, flagged. */
export function occurrence(item: BatchItem | FeedbackItem, now: number, config: SpaceConfigValues) {
  const claimed = "occurred_at" in item && item.occurred_at ? Date.parse(item.occurred_at) : null;
  if (claimed === null) return { occurredAt: now, claimedOccurredAt: null };
  const toleranceS = config.clock_tolerance_s ?? DEFAULT_CLOCK_TOLERANCE_S;
  if (claimed > now + toleranceS * 1000 || claimed < EARLIEST_MS) return { occurredAt: now, claimedOccurredAt: claimed };
  return { occurredAt: claimed, claimedOccurredAt: null };
}

function row(
  candidate: Accepted,
  caller: IntakeCaller,
  now: number,
  itemId: string,
  profileId: string | null,
  sessionId: string | null,
) {
  const item = candidate.item;
  return {
    itemId,
    idempotencyKey: item.idempotency_key,
    type: item.type,
    kind: item.type === "event" ? item.kind : null,
    channel: item.type === "event" ? (item.channel ?? null) : null,
    conversationId: "conversation_id" in item ? (item.conversation_id ?? null) : null,
    taskId: "task_id" in item ? (item.task_id ?? null) : null,
    sourceId: caller.sourceId,
    keyId: caller.keyId,
    test: caller.test ? 1 : 0,
    occurredAt: candidate.occurredAt,
    claimedOccurredAt: candidate.claimedOccurredAt,
    clockCorrected: candidate.claimedOccurredAt === null ? 0 : 1,
    receivedAt: now,
    body: candidate.json,
    profileId,
    sessionId,
  };
}

/** An item stored as its tombstone only (privacy/session-erasure.ts `tombstoneItems` makes the same of a stored one). */
function tombstoneOf(item: ItemRow): ItemRow {
  return {
    ...item,
    type: "erased",
    kind: null,
    channel: null,
    conversationId: null,
    taskId: null,
    claimedOccurredAt: null,
    body: "{}",
  };
}

/**
 * The items table with its insert built once. The column names come from the drizzle schema
 * (kept in one place); the rows go in as one JSON array in one statement, not one statement per
 * item: a statement's round trip into SQLite costs more than reading its row out of JSON.
 * Duplicates are found before (`storedKeys`) so that they have no identity effects;
 * `ON CONFLICT DO NOTHING` stays as the unique index's last word.
 */
export interface Intake {
  db: Db;
  sql: SqlStorage;
  insert: string;
  /** How a chunk's writes commit: the object's implicit transaction (`implicit-transaction.ts`). */
  turn: Transaction;
}

/** An items row; `type` and `kind` are wider than a batch item's (feedback is stored here too). */
export type ItemRow = Omit<ReturnType<typeof row>, "type" | "kind"> & { type: string; kind: string | null };

/** Every column of a row, in one order (the record makes a column added to `row()` and missing here a type error). */
const ITEM_COLUMNS = Object.keys({
  itemId: 0,
  idempotencyKey: 0,
  type: 0,
  kind: 0,
  channel: 0,
  conversationId: 0,
  taskId: 0,
  sourceId: 0,
  keyId: 0,
  test: 0,
  occurredAt: 0,
  claimedOccurredAt: 0,
  clockCorrected: 0,
  receivedAt: 0,
  body: 0,
  profileId: 0,
  sessionId: 0,
} satisfies Record<keyof ItemRow, 0>) as (keyof ItemRow)[];

export function openIntake(db: Db, sql: SqlStorage, turn: Transaction): Intake {
  const columns = getTableColumns(items);
  const names = ITEM_COLUMNS.map((name) => columns[name].name).join(", ");
  const values = ITEM_COLUMNS.map((_, index) => `r.value ->> ${index}`).join(", ");
  // `WHERE true` tells SQLite's parser that ON CONFLICT belongs to the INSERT, not to a join.
  return {
    db,
    sql,
    turn,
    insert: `INSERT INTO items (${names}) SELECT ${values} FROM json_each(?) r WHERE true ON CONFLICT DO NOTHING RETURNING item_id, seq`,
  };
}

/** Stores rows in the order given (their `seq` follows it); answers each stored row's `seq` by its item id. */
export function insertItems(intake: Intake, rows: readonly ItemRow[]): Map<string, number> {
  if (rows.length === 0) return new Map();
  const stored = intake.sql
    .exec<{ item_id: string; seq: number }>(
      intake.insert,
      JSON.stringify(rows.map((values) => ITEM_COLUMNS.map((name) => values[name]))),
    )
    .toArray();
  return new Map(stored.map((row) => [row.item_id, row.seq]));
}

/** The keys among `keys` already stored, in one statement (a JSON array: SQLite binds at most 100 values). */
export function storedKeys(intake: Intake, keys: readonly string[]): Set<string> {
  const rows = intake.sql
    .exec<{ idempotency_key: string }>(
      "SELECT i.idempotency_key FROM json_each(?) j CROSS JOIN items i WHERE i.idempotency_key = j.value",
      JSON.stringify(keys),
    )
    .toArray();
  return new Set(rows.map((row) => row.idempotency_key));
}
