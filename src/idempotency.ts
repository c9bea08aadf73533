import { Problem } from "./http/problem";

/** Answers are kept this long (SPEC: idempotency retention). */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

export interface IdempotencyRequest {
  /** Who the key belongs to (a tenant, or the space): keys of different scopes never meet. */
  scope: string;
  key: string;
  /** SHA-256 of the method, path and body of the request. */
  requestHash: string;
}

/** Where an object keeps its answers: its own table, behind these three operations. */
export interface IdempotencyStore {
  /** Drops answers created before `before`. */
  purge(before: number): void;
  find(scope: string, key: string): { requestHash: string; answer: unknown } | undefined;
  save(request: IdempotencyRequest, answer: unknown, now: number): void;
}

/**
 * The rules of an `Idempotency-Key` (SPEC), the same in every object: the same key and request
 * within 24 hours returns the first answer; the same key with another request is `409
 * conflict`; a concurrent resend waits for the first and then gets its answer. Only successful
 * answers are kept, so a failed write can be retried with its key.
 */
export class IdempotentWrites {
  #inflight = new Map<string, Promise<unknown>>();

  constructor(
    private readonly store: IdempotencyStore,
    private readonly now: () => number,
  ) {}

  async run<T>(request: IdempotencyRequest, work: () => T | Promise<T>): Promise<T> {
    const slot = `${request.scope}\n${request.key}`;
    while (this.#inflight.has(slot)) await this.#inflight.get(slot)?.catch(() => undefined);
    const running = (async () => {
      this.store.purge(this.now() - IDEMPOTENCY_RETENTION_MS);
      const record = this.store.find(request.scope, request.key);
      if (record) {
        if (record.requestHash !== request.requestHash) {
          throw new Problem("conflict", "this Idempotency-Key was used with another request");
        }
        return record.answer as T;
      }
      const answer = await work();
      this.store.save(request, answer, this.now());
      return answer;
    })();
    this.#inflight.set(slot, running);
    try {
      return await running;
    } finally {
      this.#inflight.delete(slot);
    }
  }
}
