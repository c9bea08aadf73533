import { type AttemptOutcome, decide, type RetryPolicy } from "./policy.js";

/** What the client sends requests with: `globalThis.fetch`, `SELF.fetch` in a Worker's test, a fake. */
export type Fetch = (request: Request) => Promise<Response>;

/** Waits `ms`; resolves early (never rejects) when `signal` aborts. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** One retry, as the transport reports it to `onRetry`. */
export interface RetryEvent {
  /** The attempt that failed (1 for the first). */
  attempt: number;
  /** `421`, `429`, `5xx` statuses as text, `timeout` or `network`. */
  reason: string;
  delayMs: number;
  newConnection: boolean;
}

export interface TransportOptions {
  fetch: Fetch;
  /**
   * A transport on a new connection, asked for after every `421 wrong_cell` and used from then
   * on. A fetch-based client has no handle on its runtime's connection pool, so this is where a
   * caller provides one (Node: a fetch bound to a new undici `Agent` as `dispatcher`). Without
   * it the retry is a fresh call of the same `fetch`.
   */
  newConnection?: () => Fetch;
  now: () => number;
  random: () => number;
  sleep: Sleep;
  /** How long one attempt may take before it is aborted and counted as a timeout. */
  timeoutMs: number;
  policy: RetryPolicy;
  onRetry?: (event: RetryEvent) => void;
}

/** An attempt that took longer than `timeoutMs`. */
export class RequestTimeoutError extends Error {
  override name = "TimeoutError";
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
  }
}

const TIMED_OUT = Symbol("timed out");

/**
 * A fetch that follows SPEC's retry rules (`policy.ts`). The body is read once and every attempt
 * sends the same bytes, so a write resent after a timeout carries the same idempotency keys
 * (in the items, or in an `Idempotency-Key` header, which is copied unchanged). After the last
 * attempt the caller gets its answer, or its error when it had none.
 */
export function retryingFetch(options: TransportOptions): Fetch {
  let transport = options.fetch;
  return async (request) => {
    const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
    const caller = request.signal;
    for (let attempt = 1; ; attempt++) {
      caller?.throwIfAborted();
      const controller = new AbortController();
      const forward = () => controller.abort(caller?.reason);
      caller?.addEventListener("abort", forward, { once: true });
      const attemptRequest = new Request(request.url, {
        method: request.method,
        headers: request.headers,
        body: body?.slice(0),
        redirect: request.redirect,
        signal: controller.signal,
      });
      let outcome: AttemptOutcome;
      let response: Response | undefined;
      let failure: unknown;
      try {
        response = await withTimeout(transport, attemptRequest, controller, options);
        outcome = { kind: "response", status: response.status, retryAfter: response.headers.get("retry-after") };
      } catch (error) {
        caller?.throwIfAborted();
        failure = error;
        outcome = error instanceof RequestTimeoutError ? { kind: "timeout" } : { kind: "network" };
      } finally {
        caller?.removeEventListener("abort", forward);
      }
      const decision = decide(outcome, attempt, options.policy, options.now, options.random);
      if (!decision.retry) {
        if (response) return response;
        throw failure;
      }
      // The answer is dropped: read to its end, so its connection is not left half-read.
      await response?.arrayBuffer().catch(() => undefined);
      options.onRetry?.({ attempt, reason: decision.reason, delayMs: decision.delayMs, newConnection: decision.newConnection });
      if (decision.newConnection && options.newConnection) transport = options.newConnection();
      if (decision.delayMs > 0) await options.sleep(decision.delayMs, caller);
    }
  };
}

/**
 * One attempt raced against `timeoutMs` of the injected sleep. The timer starts before the fetch
 * is called, so a test's fake fetch that hangs can fire it. On timeout the attempt is aborted.
 */
async function withTimeout(
  transport: Fetch,
  request: Request,
  controller: AbortController,
  options: TransportOptions,
): Promise<Response> {
  const timer = new AbortController();
  const timedOut = options.sleep(options.timeoutMs, timer.signal).then(() => (timer.signal.aborted ? never() : TIMED_OUT));
  const answered = transport(request);
  // Once the timer has won, the aborted fetch rejects with nobody listening.
  answered.catch(() => undefined);
  try {
    const winner = await Promise.race([answered, timedOut]);
    if (winner !== TIMED_OUT) return winner;
    const error = new RequestTimeoutError(options.timeoutMs);
    controller.abort(error);
    throw error;
  } finally {
    timer.abort();
  }
}

const never = () => new Promise<never>(() => undefined);
