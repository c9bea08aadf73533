/**
 * SPEC's retry rules for clients, as a pure function of what one attempt ended with. The
 * transport (`transport.ts`) asks it after every attempt and does what it says.
 *
 * | attempt ended with                        | next                                              |
 * | ----------------------------------------- | ------------------------------------------------- |
 * | `421 wrong_cell`                          | at once, on a new connection                      |
 * | `429`, `500`, `502`, `503`, `504`         | after `Retry-After` when given, else backoff      |
 * | a timeout or a network error              | after backoff                                     |
 * | anything else (`408` and every other 4xx) | final                                             |
 *
 * At most `maxAttempts` (3) attempts in all. Backoff is exponential with full jitter:
 * `floor(random() × min(maxDelayMs, baseDelayMs × 2^(attempt − 1)))`. A `Retry-After` longer than
 * `maxRetryAfterMs` is not waited for: that answer is final, and the caller sees it.
 */

export interface RetryPolicy {
  /** Attempts in all, the first included (SPEC: 3). */
  maxAttempts: number;
  /** Backoff ceiling of the first retry; doubled for each further one. */
  baseDelayMs: number;
  /** Cap of the exponential backoff. */
  maxDelayMs: number;
  /** The longest `Retry-After` the client waits for; a longer one makes the answer final. */
  maxRetryAfterMs: number;
}

export const DEFAULT_POLICY: RetryPolicy = {
  maxAttempts: 3,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
};

/** How one attempt ended. */
export type AttemptOutcome =
  | { kind: "response"; status: number; retryAfter: string | null }
  | { kind: "timeout" }
  | { kind: "network" };

export type RetryDecision =
  | { retry: false }
  | {
      retry: true;
      /** Milliseconds to wait before the next attempt (0: at once). */
      delayMs: number;
      /** Whether the next attempt must go over a new connection (after `421`). */
      newConnection: boolean;
      /** What the decision was taken on: the status, `timeout` or `network`. */
      reason: string;
    };

/** Statuses retried with backoff: SPEC's `429`, `500`, `502`, `503` and `504`. */
const BACKOFF_STATUSES = new Set([429, 500, 502, 503, 504]);

/**
 * What to do after attempt number `attempt` (1 for the first) ended with `outcome`.
 * `now` reads `Retry-After` dates; `random` draws the jitter in [0, 1).
 */
export function decide(
  outcome: AttemptOutcome,
  attempt: number,
  policy: RetryPolicy,
  now: () => number,
  random: () => number,
): RetryDecision {
  if (attempt >= policy.maxAttempts) return { retry: false };
  if (outcome.kind !== "response") {
    return { retry: true, delayMs: backoff(attempt, policy, random), newConnection: false, reason: outcome.kind };
  }
  const reason = String(outcome.status);
  if (outcome.status === 421) return { retry: true, delayMs: 0, newConnection: true, reason };
  if (!BACKOFF_STATUSES.has(outcome.status)) return { retry: false };
  const told = retryAfterMs(outcome.retryAfter, now());
  if (told === null) return { retry: true, delayMs: backoff(attempt, policy, random), newConnection: false, reason };
  if (told > policy.maxRetryAfterMs) return { retry: false };
  return { retry: true, delayMs: told, newConnection: false, reason };
}

/** Full jitter: a uniform draw below the exponential ceiling of this retry. */
export function backoff(attempt: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.floor(random() * ceiling);
}

/**
 * `Retry-After` in milliseconds from `now`: delay-seconds (`120`) or an HTTP date (a date in the
 * past is 0). `null` when absent or unreadable, so the caller falls back to backoff.
 */
export function retryAfterMs(value: string | null, now: number): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
