import { and, eq, lt } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import type { IdempotencyStore } from "../idempotency";
import { idempotencyRecords } from "./schema";

/**
 * The space's answers to identity writes, per caller (the request's scope names the key or the
 * person): an answer can hold what only its caller may see (whole handles), so another caller
 * sending the same key is a fresh request.
 */
export function spaceIdempotencyStore(db: DrizzleSqliteDODatabase<Record<string, unknown>>): IdempotencyStore {
  return {
    purge: (before) => {
      db.delete(idempotencyRecords).where(lt(idempotencyRecords.createdAt, before)).run();
    },
    find: (scope, key) =>
      db
        .select()
        .from(idempotencyRecords)
        .where(and(eq(idempotencyRecords.scope, scope), eq(idempotencyRecords.key, key)))
        .get(),
    save: (request, answer, now) => {
      db.insert(idempotencyRecords)
        .values({ scope: request.scope, key: request.key, requestHash: request.requestHash, answer, createdAt: now })
        .run();
    },
  };
}
