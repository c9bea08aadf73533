import { and, eq, lte } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { IDEMPOTENCY_RETENTION_MS, type IdempotencyStore } from "./idempotency";

/**
 * The table an object keeps its answers in, by scope and key. The control plane's and a space's
 * are the same but for their index's name, kept as their migrations made it.
 */
export const idempotencyTable = (createdAtIndex: string) =>
  sqliteTable(
    "idempotency_records",
    {
      scope: text("scope").notNull(),
      key: text("key").notNull(),
      requestHash: text("request_hash").notNull(),
      answer: text("answer", { mode: "json" }).notNull(),
      createdAt: integer("created_at").notNull(),
    },
    (table) => [primaryKey({ columns: [table.scope, table.key] }), index(createdAtIndex).on(table.createdAt)],
  );

/**
 * An object's answers, per scope: the caller (its key or person), since an answer can hold what
 * only its caller may see (whole handles, a new key's secret), so another caller sending the
 * same key is a fresh request.
 */
export function idempotencyStore(
  db: DrizzleSqliteDODatabase<Record<string, unknown>>,
  table: ReturnType<typeof idempotencyTable>,
): IdempotencyStore {
  return {
    purge: (before) => {
      db.delete(table).where(lte(table.createdAt, before)).run();
    },
    find: (scope, key) =>
      db
        .select()
        .from(table)
        .where(and(eq(table.scope, scope), eq(table.key, key)))
        .get(),
    save: (request, answer, now) => {
      db.insert(table)
        .values({ scope: request.scope, key: request.key, requestHash: request.requestHash, answer, createdAt: now })
        .run();
    },
  };
}

/**
 * Deletes the answers whose 24 hours are over, in either object's table (the same name in both);
 * answers when the oldest left is due to go, or null when none is left.
 */
export function purgeAnswers(sql: SqlStorage, now: number): number | null {
  sql.exec("DELETE FROM idempotency_records WHERE created_at <= ?", now - IDEMPOTENCY_RETENTION_MS);
  const oldest = sql.exec<{ at: number | null }>("SELECT min(created_at) AS at FROM idempotency_records").one().at;
  return oldest === null ? null : oldest + IDEMPOTENCY_RETENTION_MS;
}
