import { eq, lt } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import type { IdempotencyStore } from "../idempotency";
import { idempotencyRecords } from "./schema";

/** The space's answers to identity writes: one space, so the key alone names the record. */
export function spaceIdempotencyStore(db: DrizzleSqliteDODatabase<Record<string, unknown>>): IdempotencyStore {
  return {
    purge: (before) => {
      db.delete(idempotencyRecords).where(lt(idempotencyRecords.createdAt, before)).run();
    },
    find: (_scope, key) => db.select().from(idempotencyRecords).where(eq(idempotencyRecords.key, key)).get(),
    save: (request, answer, now) => {
      db.insert(idempotencyRecords).values({ key: request.key, requestHash: request.requestHash, answer, createdAt: now }).run();
    },
  };
}
