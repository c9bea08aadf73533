import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Sessions (DESIGN 3.6): windows of activity of one conversation or task, or, for events with
 * neither, of one profile's channel. `conversation_key` says which (`c:<conversation>:<profile>`,
 * `t:<task>:<profile>`, `p:<profile>:<channel>`); times are
 * memory time (`occurred_at`); `conversation_id` is the conversation's first id seen, or the task's id. Closed on time by a `session.close` timer or at once by
 * `conversation.ended` / `task.ended`. Owned by `sessions.ts`.
 */
/** A session's state: the columns of `sessions`, and of each row of `session_inbox`. */
const sessionState = () => ({
  sessionId: text("session_id").notNull(),
  conversationKey: text("conversation_key").notNull(),
  kind: text("kind").notNull(),
  channel: text("channel"),
  conversationId: text("conversation_id"),
  profileId: text("profile_id").notNull(),
  startedAt: integer("started_at").notNull(),
  lastAt: integer("last_at").notNull(),
  status: text("status").notNull(),
  closedAt: integer("closed_at"),
  closedBy: text("closed_by"),
  handoffAt: integer("handoff_at"),
});

export const sessions = sqliteTable("sessions", { ...sessionState(), sessionId: text("session_id").primaryKey() }, (table) => [
  // Also every profile's sessions of one conversation (its end and latest sessions): the key
  // begins with the conversation's id.
  index("sessions_conversation").on(table.conversationKey, table.startedAt),
  // Only open sessions: a small index that a session leaves when it closes, instead of one
  // entry per session ever kept in order of profile.
  index("sessions_open").on(table.profileId).where(sql`status = 'open'`),
  // The timeline walks a profile's sessions newest first: a session holds no event after its `last_at`
  // nor before its `started_at`, both read from the index.
  index("sessions_profile_last").on(table.profileId, table.lastAt, table.startedAt),
]);

/**
 * What batches did to sessions since the last fold into `sessions`: each touched session's whole
 * state, appended in arrival order (the latest row of a session wins). A batch writes a few pages
 * at the table's end, not a row and three index entries at random places of `sessions` per
 * session. Owned by `sessions.ts`, which reads through it and folds it (`foldSessions`).
 */
export const sessionInbox = sqliteTable("session_inbox", { seq: integer("seq").primaryKey(), ...sessionState() });

/**
 * The events of each session in memory order (`occurred_at`, then arrival `seq`): what
 * `items_session` indexed, as a table keyed by it (`WITHOUT ROWID`, migration 0015, raw SQL:
 * drizzle cannot declare it), written by folds of `item_placements`. Owned by `session-events.ts`.
 */
export const sessionEventIndex = sqliteTable(
  "session_events",
  {
    sessionId: text("session_id").notNull(),
    occurredAt: integer("occurred_at").notNull(),
    seq: integer("seq").notNull(),
  },
  (table) => [primaryKey({ columns: [table.sessionId, table.occurredAt, table.seq] })],
);

/**
 * The events batches placed in sessions since the last fold into `session_events`, by `seq`: a
 * batch writes a few pages at the table's end instead of an entry at a random place per event
 * (its sessions are hundreds of random ones). Owned by `session-events.ts`.
 */
export const itemPlacements = sqliteTable("item_placements", {
  seq: integer("seq").primaryKey(),
  sessionId: text("session_id").notNull(),
  occurredAt: integer("occurred_at").notNull(),
});

/** `conversation_aliases`: further ids of one conversation, each pointing at the first id seen. Owned by `sessions.ts`. */
export const conversationAliases = sqliteTable("conversation_aliases", {
  alias: text("alias").primaryKey(),
  conversationId: text("conversation_id").notNull(),
});

/**
 * What batches queued since the last fold into `compile_queue`, appended in arrival order: a batch
 * writes a few pages at the table's end, not one at a random place of the queue per session.
 * Owned by `compiler.ts`.
 */
export const compileInbox = sqliteTable("compile_inbox", {
  seq: integer("seq").primaryKey(),
  sessionId: text("session_id").notNull(),
  profileId: text("profile_id").notNull(),
  events: integer("events").notNull(),
  queuedAt: integer("queued_at").notNull(),
});

/** Sessions whose events changed since they were compiled, and how many events wait. Owned by `compiler.ts`. */
export const compileQueue = sqliteTable(
  "compile_queue",
  {
    sessionId: text("session_id").notNull(),
    profileId: text("profile_id").notNull(),
    events: integer("events").notNull(),
    queuedAt: integer("queued_at").notNull(),
  },
  (table) => [
    // Kept by profile (what a profile has pending is a range) and `WITHOUT ROWID` (migration
    // 0009, which drizzle cannot declare): a queued session writes two B-trees, not four.
    primaryKey({ columns: [table.profileId, table.sessionId] }),
    // Slices take the oldest first: without this index each pick scanned the whole queue.
    index("compile_queue_queued").on(table.queuedAt, table.sessionId),
  ],
);

/** One episode per session (DESIGN 3.7), rebuilt with its session. Owned by `compiler.ts`. */
export const episodes = sqliteTable(
  "episodes",
  {
    sessionId: text("session_id").primaryKey(),
    profileId: text("profile_id").notNull(),
    startedAt: integer("started_at").notNull(),
    endedAt: integer("ended_at").notNull(),
    open: integer("open").notNull(),
    body: text("body").notNull(),
  },
  (table) => [index("episodes_profile").on(table.profileId, table.startedAt)],
);

/**
 * What the compiler derived from each event, one row per thing: a fact value, an object's
 * change, a promise, an open question. Rebuilt with the event's session; a profile's memory
 * entries are compiled from the rows of its members. `id` is stable across rebuilds (derived from
 * the event and the key). Owned by `derivations.ts`.
 */
export const derivations = sqliteTable(
  "derivations",
  {
    id: text("id").notNull(),
    type: text("type").notNull(),
    profileId: text("profile_id").notNull(),
    sessionId: text("session_id").notNull(),
    itemId: text("item_id").notNull(),
    sourceId: text("source_id").notNull(),
    /** What it is about: a fact's key, an object's `type\nid`, a promise's object. */
    subject: text("subject").notNull(),
    occurredAt: integer("occurred_at").notNull(),
    seq: integer("seq").notNull(),
    body: text("body").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.id] }),
    index("derivations_profile").on(table.profileId, table.type, table.subject, table.occurredAt, table.seq),
    index("derivations_session").on(table.sessionId),
  ],
);

/** A profile's compiled memory as context answers it, with its version. Owned by `compiler.ts`. */
export const memories = sqliteTable("memories", {
  profileId: text("profile_id").primaryKey(),
  version: integer("version").notNull(),
  throughAt: integer("through_at"),
  compiledAt: integer("compiled_at").notNull(),
  body: text("body").notNull(),
});

/**
 * The entries of each root profile's memory (facts, objects, promises, questions), each compiled
 * from the derivations of one subject across the profile's members. A compile rewrites only the
 * subjects its sessions touched; the lists are read back newest first through `memory_entries_list`
 * and `memory_entries_open`. Owned by `memory-entries.ts`.
 */
export const memoryEntries = sqliteTable(
  "memory_entries",
  {
    profileId: text("profile_id").notNull(),
    kind: text("kind").notNull(),
    subject: text("subject").notNull(),
    key: text("key").notNull(),
    at: integer("at").notNull(),
    listed: integer("listed").notNull(),
    /** When it opened, while it is an open item; null otherwise. */
    openAt: integer("open_at"),
    view: text("view"),
    openItem: text("open_item"),
  },
  (table) => [
    primaryKey({ columns: [table.profileId, table.kind, table.subject, table.key] }),
    index("memory_entries_list").on(table.profileId, table.kind, table.listed, table.at, table.key),
    index("memory_entries_open").on(table.profileId, table.openAt, table.key),
  ],
);

/**
 * What feedback changed (SPEC `POST /v1/feedback`), by what it is about: a fact statement
 * (`retract_fact`, `correct_fact`), an open item (`resolve_open_item`) or a session
 * (`conversation_outcome`). The latest feedback on a target wins; the compiler applies these
 * over what the events derived. Owned by `corrections.ts`.
 */
export const corrections = sqliteTable("corrections", {
  targetId: text("target_id").primaryKey(),
  action: text("action").notNull(),
  value: text("value"),
  itemId: text("item_id").notNull(),
  seq: integer("seq").notNull(),
});
