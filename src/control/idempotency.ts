import { and, eq, lt } from "drizzle-orm";
import { Problem } from "../http/problem";
import type { ControlDb } from "./db";
import { idempotencyRecords } from "./schema";

const RETENTION_MS = 24 * 60 * 60 * 1000;

export interface IdempotencyRequest {
  /** Who the key belongs to: keys of different tenants never meet. */
  scope: string;
  key: string;
  /** SHA-256 of the method, path and body of the request. */
  requestHash: string;
}

/**
 * The answer first given to this key, if any. The same key with another request within 24
 * hours is `409 conflict`. Only successful answers are kept, so a failed write can be retried
 * with the same key.
 */
export function replayAnswer(db: ControlDb, request: IdempotencyRequest, now: number): unknown {
  db.delete(idempotencyRecords)
    .where(lt(idempotencyRecords.createdAt, now - RETENTION_MS))
    .run();
  const record = db
    .select()
    .from(idempotencyRecords)
    .where(and(eq(idempotencyRecords.scope, request.scope), eq(idempotencyRecords.key, request.key)))
    .get();
  if (!record) return undefined;
  if (record.requestHash !== request.requestHash) {
    throw new Problem("conflict", "this Idempotency-Key was used with another request");
  }
  return record.answer;
}

export function rememberAnswer(db: ControlDb, request: IdempotencyRequest, answer: unknown, now: number): void {
  db.insert(idempotencyRecords)
    .values({ scope: request.scope, key: request.key, requestHash: request.requestHash, answer, createdAt: now })
    .run();
}
