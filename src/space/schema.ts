import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { idempotencyTable } from "../idempotency-store";

export { auditLog } from "../audit/schema";
export * from "./exports/schema";
export * from "./identity/schema";
export * from "./imports/schema";
export * from "./limits/schema";
export * from "./measurement/schema";
export * from "./media/schema";
export * from "./memory/model-schema";
export * from "./memory/schema";
export * from "./privacy/schema";

/**
 * Every item of every batch, raw, as it arrived (SPEC: the raw event is stored before the
 * answer). Owned by `intake.ts`. `seq` is arrival order; memory reads by `occurred_at`.
 */
export const items = sqliteTable(
  "items",
  {
    seq: integer("seq").primaryKey(),
    itemId: text("item_id").notNull(),
    idempotencyKey: text("idempotency_key").notNull(),
    type: text("type").notNull(),
    kind: text("kind"),
    channel: text("channel"),
    conversationId: text("conversation_id"),
    taskId: text("task_id"),
    sourceId: text("source_id").notNull(),
    keyId: text("key_id").notNull(),
    test: integer("test", { mode: "boolean" }).notNull(),
    occurredAt: integer("occurred_at").notNull(),
    claimedOccurredAt: integer("claimed_occurred_at"),
    clockCorrected: integer("clock_corrected", { mode: "boolean" }).notNull(),
    receivedAt: integer("received_at").notNull(),
    body: text("body").notNull(),
    /**
     * The profile the item was resolved to when it arrived (identity); merges never rewrite it.
     * Indexed only for items that are not events (`items_profile_not_event`): memory reads events
     * by session, and an index keyed by profile would dirty a page per event in every batch's commit.
     */
    profileId: text("profile_id"),
    /** The session the event belongs to (memory); null for items that are not events. */
    sessionId: text("session_id"),
  },
  (table) => [
    uniqueIndex("items_idempotency_key").on(table.idempotencyKey),
    uniqueIndex("items_item_id").on(table.itemId),
    // No index by `occurred_at` alone, nor by session: memory reads events by session through
    // `session_events` (memory/schema.ts), and every index here costs a page written per event in
    // each batch's commit.
    // By profile, for items that are not events (identify, verify, feedback: few): forget finds a
    // subject's events through its sessions and the rest here (privacy/erasure-steps.ts).
    index("items_profile_not_event").on(table.profileId).where(sql`type <> 'event' AND profile_id IS NOT NULL`),
    // Items that end or hand over sessions name a conversation or task, not a profile (few):
    // forget finds those of a subject's conversations here (privacy/conversation-erasure.ts).
    index("items_control_conversation")
      .on(table.conversationId)
      .where(sql`type IN ('handoff', 'conversation.ended', 'task.ended')`),
    index("items_control_task").on(table.taskId).where(sql`type IN ('handoff', 'conversation.ended', 'task.ended')`),
    // And by time, for retention: its oldest ones without reading the newer.
    index("items_control_time").on(table.occurredAt).where(sql`type IN ('handoff', 'conversation.ended', 'task.ended')`),
  ],
);

/**
 * Answers of writes that carry an `Idempotency-Key` (identity writes), kept 24 hours with the
 * hash of the request, per caller (`scope`: `key:<key id>` or `person:<person id>`): another
 * caller's answer is never replayed. Owned by `src/idempotency-store.ts`.
 */
export const idempotencyRecords = idempotencyTable("idempotency_records_created_at");

/** Keys the object made for itself (cursor signing: src/auth/signing-key.ts), random, never shown. */
export const signingKeys = sqliteTable("signing_keys", {
  name: text("name").primaryKey(),
  secret: text("secret").notNull(),
});

/** Every timed effect (DESIGN §4): one row per due effect, one alarm at the earliest. Owned by `timers.ts`. */
export const timers = sqliteTable(
  "timers",
  {
    kind: text("kind").notNull(),
    key: text("key").notNull(),
    dueAt: integer("due_at").notNull(),
    payload: text("payload", { mode: "json" }).$type<unknown>(),
  },
  (table) => [
    // `WITHOUT ROWID` (migration 0010, which drizzle cannot declare): a timer writes its key's
    // B-tree and the due index, not a rowid table besides.
    primaryKey({ columns: [table.kind, table.key] }),
    index("timers_due_at").on(table.dueAt),
  ],
);

/** The space itself, as the ControlObject pushed it. Owned by `replica.ts`. */
export const spaceRecord = sqliteTable("space_record", {
  spaceId: text("space_id").primaryKey(),
  name: text("name").notNull(),
  tenantId: text("tenant_id").notNull(),
  projectId: text("project_id").notNull(),
  region: text("region").notNull(),
});

/** Replica of the space's key records; only HMAC digests, never secrets. Owned by `replica.ts`. */
export const replicaKeys = sqliteTable("replica_keys", {
  keyId: text("key_id").primaryKey(),
  sourceId: text("source_id").notNull(),
  scopes: text("scopes", { mode: "json" }).notNull().$type<string[]>(),
  mode: text("mode").notNull(),
  digest: text("digest").notNull(),
  status: text("status").notNull(),
  expiresAt: integer("expires_at"),
});

/** Replica of the space's sources: what their keys may do. Owned by `replica.ts`. */
export const replicaSources = sqliteTable("replica_sources", {
  sourceId: text("source_id").primaryKey(),
  kind: text("kind").notNull(),
  verificationCeiling: text("verification_ceiling").notNull(),
  actOperations: text("act_operations", { mode: "json" }).notNull().$type<string[]>(),
  actObjectTypes: text("act_object_types", { mode: "json" }).notNull().$type<string[]>(),
});

/** The current configuration version of the space. Owned by `replica.ts`. */
export const replicaConfig = sqliteTable("replica_config", {
  id: integer("id").primaryKey(),
  version: integer("version").notNull(),
  values: text("values", { mode: "json" }).notNull().$type<Record<string, unknown>>(),
});

/** The tenant's person tokens cut before their expiry (src/auth/token-cuts.ts). Owned by `replica.ts`. */
export const replicaTokenCuts = sqliteTable("replica_token_cuts", {
  id: integer("id").primaryKey(),
  personId: text("person_id").notNull(),
  tokenId: text("token_id"),
  generation: integer("generation").notNull(),
  until: integer("until").notNull(),
});

/** Each inbox's fold generation: a reader's memory of the inbox's keys is good while it holds. Owned by `inbox-keys.ts`. */
export const inboxFolds = sqliteTable("inbox_folds", {
  inbox: text("inbox").primaryKey(),
  generation: integer("generation").notNull(),
});
