import createClient from "openapi-fetch";
import { DEFAULT_POLICY, type RetryPolicy } from "./policy.js";
import type { components, paths } from "./schema.js";
import { type ContextStamp, stampFrom } from "./stamp.js";
import { type Fetch, type RetryEvent, retryingFetch, type Sleep } from "./transport.js";
import { uuidv7 } from "./uuid.js";

type Schemas = components["schemas"];
export type BatchItem = Schemas["BatchItem"];
export type BatchAnswer = Schemas["BatchAnswer"];
export type FeedbackItem = Schemas["FeedbackItem"];
export type ContextInput = Schemas["ContextInput"];
export type Context = Schemas["Context"];
export type ContextUnchanged = Schemas["ContextUnchanged"];
export type SearchInput = Schemas["SearchInput"];
export type SearchPage = Schemas["SearchPage"];
export type Problem = Schemas["Problem"];

/**
 * An item as a caller may give it: `idempotency_key` may be left out (the client makes one, a
 * UUID v7), and so may a message's `kind`, which the server defaults to `message` (the generated
 * type requires it: openapi-typescript writes the discriminator of `EventItem` into each event).
 */
export type ItemInput<T> = T extends unknown
  ? Omit<T, "idempotency_key" | "kind"> & { idempotency_key?: string } & (T extends { kind: "message" }
        ? { kind?: "message" }
        : T extends { kind: infer Kind }
          ? { kind: Kind }
          : unknown)
  : never;
export type BatchItemInput = ItemInput<BatchItem>;
export type FeedbackItemInput = ItemInput<FeedbackItem>;

export interface MemoryClientOptions {
  /** The data API of one space: `https://<space>.<region>.<host>`, or `http://127.0.0.1:8787/spaces/<space>` locally. */
  baseUrl: string;
  /** A source key (or a person token): sent as `Authorization: Bearer <key>`. */
  key: string;
  /** Default: the global `fetch`. */
  fetch?: Fetch;
  /** A transport on a new connection, asked for after `421 wrong_cell` (see `TransportOptions`). */
  newConnection?: () => Fetch;
  /** Milliseconds since the epoch. Default `Date.now`. Used for `Retry-After` dates, UUID v7 keys and stamps. */
  now?: () => number;
  /** A number in [0, 1). Default: `crypto.getRandomValues`. Used for jitter and UUID v7 keys. */
  random?: () => number;
  /** Default: `setTimeout`. */
  sleep?: Sleep;
  /** How long one attempt may take (default 30 s) before it is aborted and retried as a timeout. */
  timeoutMs?: number;
  /** Overrides of the retry policy (default: 3 attempts, backoff 250 ms doubling to 8 s, `Retry-After` up to 60 s). */
  retry?: Partial<RetryPolicy>;
  /** Told of every retry: for logs and metrics. */
  onRetry?: (event: RetryEvent) => void;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
}

interface CallOptions {
  signal?: AbortSignal;
}

const cryptoRandom = () => (crypto.getRandomValues(new Uint32Array(1))[0] ?? 0) / 2 ** 32;

const timerSleep: Sleep = (ms, signal) =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });

/**
 * A client of one space's data API. `raw` is the openapi-fetch client over every route of the
 * document (`raw.POST("/v1/timeline", {body})`); the helpers cover the calls an agent makes on
 * every turn. Every call, raw or helper, goes through SPEC's retry rules (`policy.ts`).
 * Answers are openapi-fetch's `{data, error, response}`: `error` is the problem document.
 */
export function createMemoryClient(options: MemoryClientOptions) {
  const now = options.now ?? Date.now;
  const random = options.random ?? cryptoRandom;
  const fetch = retryingFetch({
    fetch: options.fetch ?? ((request) => globalThis.fetch(request)),
    ...(options.newConnection ? { newConnection: options.newConnection } : {}),
    now,
    random,
    sleep: options.sleep ?? timerSleep,
    timeoutMs: options.timeoutMs ?? 30_000,
    policy: { ...DEFAULT_POLICY, ...options.retry },
    ...(options.onRetry ? { onRetry: options.onRetry } : {}),
  });
  const raw = createClient<paths>({
    baseUrl: options.baseUrl,
    fetch,
    headers: { ...options.headers, authorization: `Bearer ${options.key}` },
  });
  const newKey = () => uuidv7(now, random);
  const keyed = <T extends { idempotency_key?: string }>(item: T) => ({
    ...item,
    idempotency_key: item.idempotency_key ?? newKey(),
  });

  return {
    raw,
    /** A new idempotency key (UUID v7), e.g. for the `Idempotency-Key` header of identity writes. */
    newKey,
    /** `{etag, injected_at}` of a context answer, at the client's clock: put it on the agent's turn. */
    stampFrom: (answer: { etag: string }): ContextStamp => stampFrom(answer, now()),

    /**
     * `POST /v1/batch`. Items without `idempotency_key` get one before the first attempt, so a
     * resend carries the same keys. `items` in the answer are the items as sent.
     */
    async batch(items: BatchItemInput[], call: CallOptions = {}) {
      const sent = items.map(keyed) as BatchItem[];
      const result = await raw.POST("/v1/batch", { body: { items: sent }, ...call });
      return { ...result, items: sent };
    },

    /** `POST /v1/feedback`, keyed like `batch`. */
    async feedback(items: FeedbackItemInput[], call: CallOptions = {}) {
      const sent = items.map(keyed) as FeedbackItem[];
      const result = await raw.POST("/v1/feedback", { body: { items: sent }, ...call });
      return { ...result, items: sent };
    },

    /** `POST /v1/context`: the customer's context by handle (`{unchanged: true, etag}` when `known_etag` is current). */
    context(body: ContextInput, call: CallOptions = {}) {
      return raw.POST("/v1/context", { body, ...call });
    },

    /** `POST /v1/search`. */
    search(body: SearchInput, call: CallOptions = {}) {
      return raw.POST("/v1/search", { body, ...call });
    },
  };
}

export type MemoryClient = ReturnType<typeof createMemoryClient>;
