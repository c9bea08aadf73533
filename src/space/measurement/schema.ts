import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Every context etag the space answered (context reads), with when it was first answered and
 * when its profile next received events (`superseded_at`, null while it is current). Lets
 * context-use measurement tell a current stamp from a late or unknown one. Owned by
 * `served-contexts.ts`.
 */
export const servedContexts = sqliteTable(
  "served_contexts",
  {
    etag: text("etag").primaryKey(),
    profileId: text("profile_id").notNull(),
    servedAt: integer("served_at").notNull(),
    supersededAt: integer("superseded_at"),
  },
  // Only current etags: an etag leaves the index when it is superseded, so a batch finds at once
  // whether there is anything to supersede.
  (table) => [index("served_contexts_current").on(table.profileId).where(sql`superseded_at IS NULL`)],
);

/**
 * Agent turns per UTC day (`YYYY-MM-DD`) and source, by what their `context_stamp` says:
 * a current context, a late one, an unknown etag, or no stamp. Owned by `context-use.ts`.
 */
export const contextUses = sqliteTable(
  "context_uses",
  {
    day: text("day").notNull(),
    sourceId: text("source_id").notNull(),
    current: integer("current").notNull(),
    late: integer("late").notNull(),
    unknown: integer("unknown").notNull(),
    none: integer("none").notNull(),
  },
  (table) => [primaryKey({ columns: [table.day, table.sourceId] })],
);
