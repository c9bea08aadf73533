import { IdempotencyHeaderSchema } from "./contract/common";
import { describeIssues } from "./http/issues";
import { Problem } from "./http/problem";

/** Answers are kept this long (SPEC: idempotency retention). */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

export interface IdempotencyRequest {
  /** Who the key belongs to (a tenant, or the space): keys of different scopes never meet. */
  scope: string;
  key: string;
  /** HMAC-SHA-256, keyed by `KEY_PEPPER`, of the method, path and body of the request (`edge/idempotency.ts`). */
  requestHash: string;
}

/** Where an object keeps its answers: its own table, behind these three operations. */
export interface IdempotencyStore {
  /** Drops answers created at or before `before` (as `purgeAnswers` does: an answer ends 24 hours after it was made). */
  purge(before: number): void;
  find(scope: string, key: string): { requestHash: string; answer: unknown } | undefined;
  save(request: IdempotencyRequest, answer: unknown, now: number): void;
}

/**
 * The rules of an `Idempotency-Key` (SPEC), the same in every object: the same key and request
 * within 24 hours returns the first answer; the same key with another request is `409
 * conflict`. Only successful answers are kept, so a failed write can be retried with its key.
 */
export class IdempotentWrites {
  /**
   * `kept` is told, inside the write's transaction, when each answer kept is due to go (24 hours
   * on): the space sets a timer row for it, since an answer can hold a customer's whole handles.
   * The control object sets its alarm after the transaction instead.
   */
  constructor(
    private readonly store: IdempotencyStore,
    private readonly now: () => number,
    private readonly kept: (expiresAt: number) => void = () => undefined,
  ) {}

  /**
   * The work is synchronous and its answer kept in the same transaction, so no failure or restart
   * after the work can separate them (a retry finds the answer, never a second write); nothing
   * else runs in between (an object runs one synchronous call at a time), so a concurrent resend
   * finds the first one's answer.
   */
  runInTransaction<T>(request: IdempotencyRequest, transaction: <R>(work: () => R) => R, work: () => T): T {
    return transaction(() => {
      const replayed = this.#replay(request);
      if (replayed) return replayed.answer as T;
      const answer = work();
      this.#save(request, answer);
      return answer;
    });
  }

  #save(request: IdempotencyRequest, answer: unknown): void {
    const now = this.now();
    this.store.save(request, answer, now);
    this.kept(now + IDEMPOTENCY_RETENTION_MS);
  }

  #replay(request: IdempotencyRequest): { answer: unknown } | undefined {
    this.store.purge(this.now() - IDEMPOTENCY_RETENTION_MS);
    const record = this.store.find(request.scope, request.key);
    if (!record) return undefined;
    if (record.requestHash !== request.requestHash) {
      throw new Problem("conflict", "this Idempotency-Key was used with another request");
    }
    return { answer: record.answer };
  }
}

/**
 * An `Idempotency-Key` a data route received, checked by the space's object after the
 * credential (a revoked key is `401` whatever its headers), by the rule the document declares
 * and the control routes check: an absent or empty header is `required`.
 */
export function checkedIdempotencyKey(key: string | null): string {
  const header = { "idempotency-key": key || undefined };
  const parsed = IdempotencyHeaderSchema.safeParse(header);
  if (!parsed.success) {
    throw new Problem("invalid_input", describeIssues(IdempotencyHeaderSchema, parsed.error.issues, "header", "header", header));
  }
  return parsed.data["idempotency-key"];
}
