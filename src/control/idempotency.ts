import { and, eq, lt } from "drizzle-orm";
import type { IdempotencyStore } from "../idempotency";
import type { ControlDb } from "./db";
import { idempotencyRecords } from "./schema";

/** The control plane's answers, per tenant (the request's scope). */
export function controlIdempotencyStore(db: ControlDb): IdempotencyStore {
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
