import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The model path of summaries (docs/api/memory.md "Model summaries"), owned by `model-summaries.ts`.
 * A session's version is its event count and the largest `seq` of its events: a late event changes it.
 */

/**
 * Per session: the version the model was last asked about and when (a version is asked once), and
 * the last digest it gave with the version it was made from (null until an answer passed).
 */
export const modelSummaries = sqliteTable("model_summaries", {
  sessionId: text("session_id").primaryKey(),
  triedEvents: integer("tried_events").notNull(),
  triedSeq: integer("tried_seq").notNull(),
  triedAt: integer("tried_at").notNull(),
  events: integer("events"),
  lastSeq: integer("last_seq"),
  model: text("model"),
  digest: text("digest"),
});

/** Closed sessions waiting for the model, each due once its last call is a minute old. */
export const modelQueue = sqliteTable(
  "model_queue",
  {
    sessionId: text("session_id").primaryKey(),
    profileId: text("profile_id").notNull(),
    dueAt: integer("due_at").notNull(),
  },
  (table) => [index("model_queue_due").on(table.dueAt)],
);

/** Model calls per UTC day (`YYYY-MM-DD`) and outcome (`ok` or why the offline digest stayed): the daily limit counts them all. */
export const modelCalls = sqliteTable(
  "model_calls",
  {
    day: text("day").notNull(),
    outcome: text("outcome").notNull(),
    calls: integer("calls").notNull(),
  },
  (table) => [primaryKey({ columns: [table.day, table.outcome] })],
);
