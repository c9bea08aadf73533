import { describe, expect, it } from "vitest";
import {
  type BatchItemInput,
  backoff,
  createMemoryClient,
  DEFAULT_POLICY,
  type Fetch,
  type MemoryClientOptions,
  RequestTimeoutError,
  type RetryEvent,
  retryAfterMs,
  type Sleep,
  uuidv7,
} from "../src/index.js";

/**
 * The client against a fake server: a fetch the test injects, answering from a script, over
 * numbered connections (a connection is one transport handed out by `newConnection`). Clock,
 * random source and sleep are injected, so attempts, delays and keys are exact.
 */

const BASE = "http://fake.test/spaces/demo";
const KEY = "cms_live_local_demo_abcdefghijkl_secret";
const TIMEOUT = 10_000;
const NOW = Date.parse("2026-11-23T20:00:00.000Z");
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

type Step = (() => Response) | "hang" | "network";

interface Sent {
  connection: number;
  method: string;
  url: string;
  authorization: string | null;
  body: string;
  signal: AbortSignal;
}

function problem(status: number, code: string, headers: Record<string, string> = {}): () => Response {
  const body = {
    type: `https://errors.test/${code}`,
    title: code,
    status,
    code,
    detail: "from the fake server",
    request_id: "r",
  };
  return () =>
    new Response(JSON.stringify(body), { status, headers: { "content-type": "application/problem+json", ...headers } });
}

const ok = (body: unknown) => () => Response.json(body);
const ACCEPTED = (accepted: number) => ok({ accepted, duplicates: 0, errors: [] });

function fakeServer(script: Step[]) {
  const sent: Sent[] = [];
  const sleeps: number[] = [];
  const retries: RetryEvent[] = [];
  // Timeout timers wait here until an attempt hangs, or until their attempt settles (abort).
  const timers: (() => void)[] = [];
  let connections = 0;

  const connect = (): Fetch => {
    const connection = ++connections;
    return async (request) => {
      sent.push({
        connection,
        method: request.method,
        url: request.url,
        authorization: request.headers.get("authorization"),
        body: await request.text(),
        signal: request.signal,
      });
      const step = script.shift();
      if (step === undefined) throw new Error("the fake server has no more answers");
      if (step === "network") throw new TypeError("fetch failed");
      if (step === "hang") {
        for (const fire of timers.splice(0)) fire();
        return new Promise<Response>((_, reject) => {
          request.signal.addEventListener("abort", () => reject(request.signal.reason), { once: true });
        });
      }
      return step();
    };
  };

  const sleep: Sleep = (ms, signal) => {
    sleeps.push(ms);
    if (ms !== TIMEOUT) return Promise.resolve();
    return new Promise<void>((resolve) => {
      timers.push(resolve);
      signal?.addEventListener("abort", () => resolve(), { once: true });
    });
  };

  const client = (options: Partial<MemoryClientOptions> = {}) =>
    createMemoryClient({
      baseUrl: BASE,
      key: KEY,
      fetch: connect(),
      newConnection: connect,
      now: () => NOW,
      random: () => 0.5,
      sleep,
      timeoutMs: TIMEOUT,
      onRetry: (event) => retries.push(event),
      ...options,
    });

  /** The delays waited between attempts (the sleeps that were not attempt timers). */
  const delays = () => sleeps.filter((ms) => ms !== TIMEOUT);
  return { sent, sleeps, retries, client, delays };
}

const message = (text: string): BatchItemInput => ({
  type: "event",
  channel: "whatsapp",
  conversation_id: "c-1",
  handles: [{ type: "phone_e164", value: "+15555550100" }],
  speaker: { role: "customer" },
  content: { type: "text", text },
  occurred_at: "2026-11-23T19:59:00.000Z",
});

const keysOf = (body: string) =>
  (JSON.parse(body) as { items: { idempotency_key: string }[] }).items.map((item) => item.idempotency_key);

/** The UUID v7 the client makes at NOW when every random draw is 0.5 (each random byte 0x80). */
function expectedKey(): string {
  const time = NOW.toString(16).padStart(12, "0");
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7080-8080-808080808080`;
}

describe("typed client: 421 wrong_cell is retried at once on a new connection", () => {
  it("sends the second attempt over the transport newConnection() handed out, with no delay and the same body", async () => {
    const server = fakeServer([problem(421, "wrong_cell"), ACCEPTED(1)]);
    const result = await server.client().batch([message("Where is my order?")]);

    expect(result.response.status).toBe(200);
    expect(result.data).toEqual({ accepted: 1, duplicates: 0, errors: [] });
    expect(server.sent.map((request) => request.connection)).toEqual([1, 2]);
    expect(server.sent[1]?.body).toBe(server.sent[0]?.body);
    expect(server.retries).toEqual([{ attempt: 1, reason: "421", delayMs: 0, newConnection: true }]);
    expect(server.delays()).toEqual([]);
  });

  it("without a newConnection hook, retries with a fresh call of the same fetch", async () => {
    const server = fakeServer([problem(421, "wrong_cell"), problem(421, "wrong_cell"), ACCEPTED(1)]);
    const client = server.client({ newConnection: undefined });
    const result = await client.batch([message("Hello")]);

    expect(result.response.status).toBe(200);
    expect(server.sent.map((request) => request.connection)).toEqual([1, 1, 1]);
    expect(server.delays()).toEqual([]);
  });
});

describe("typed client: 5xx and 429 with exponential backoff, full jitter and Retry-After", () => {
  it("makes at most 3 attempts on 503, waiting random × 250 ms, then random × 500 ms, and answers the last problem", async () => {
    const server = fakeServer([problem(503, "unavailable"), problem(503, "unavailable"), problem(503, "unavailable")]);
    const result = await server.client({ random: () => 0.9 }).batch([message("Hello")]);

    expect(server.sent).toHaveLength(3);
    expect(server.delays()).toEqual([225, 450]);
    expect(server.retries.map((event) => [event.attempt, event.reason, event.delayMs])).toEqual([
      [1, "503", 225],
      [2, "503", 450],
    ]);
    expect(result.response.status).toBe(503);
    expect(result.error).toMatchObject({ code: "unavailable", status: 503 });
  });

  it("waits exactly the seconds of Retry-After on 429", async () => {
    const server = fakeServer([problem(429, "rate_limited", { "Retry-After": "2" }), ACCEPTED(1)]);
    const result = await server.client().batch([message("Hello")]);

    expect(result.response.status).toBe(200);
    expect(server.delays()).toEqual([2000]);
    expect(server.retries).toEqual([{ attempt: 1, reason: "429", delayMs: 2000, newConnection: false }]);
  });

  it("reads a Retry-After date against the injected clock", async () => {
    const at = new Date(NOW + 3000).toUTCString();
    const server = fakeServer([problem(503, "unavailable", { "Retry-After": at }), ACCEPTED(1)]);
    await server.client().batch([message("Hello")]);

    expect(server.delays()).toEqual([3000]);
  });

  it("takes a Retry-After longer than maxRetryAfterMs (60 s) as final", async () => {
    const server = fakeServer([problem(429, "rate_limited", { "Retry-After": "120" })]);
    const result = await server.client().batch([message("Hello")]);

    expect(server.sent).toHaveLength(1);
    expect(result.response.status).toBe(429);
    expect(result.response.headers.get("retry-after")).toBe("120");
  });

  it("retries 500, 502 and 504, and reads like writes", async () => {
    const server = fakeServer([
      problem(500, "internal_error"),
      problem(502, "unavailable"),
      ok({ results: [], next_cursor: null }),
    ]);
    const result = await server.client().search({ query: "refund" });

    expect(result.data).toEqual({ results: [], next_cursor: null });
    expect(server.retries.map((event) => event.reason)).toEqual(["500", "502"]);
    expect(server.delays()).toEqual([125, 250]);

    const gateway = fakeServer([problem(504, "unavailable"), ACCEPTED(1)]);
    await gateway.client().batch([message("Hello")]);
    expect(gateway.retries.map((event) => event.reason)).toEqual(["504"]);
  });

  it("never retries 401, 403, 404, 408, 409, 422 or 501", async () => {
    for (const [status, code] of [
      [401, "unauthenticated"],
      [403, "scope_missing"],
      [404, "not_found"],
      [408, "request_timeout"],
      [409, "conflict"],
      [422, "invalid_input"],
      [501, "not_implemented"],
    ] as const) {
      const server = fakeServer([problem(status, code)]);
      const result = await server.client().batch([message("Hello")]);
      expect(result.response.status).toBe(status);
      expect(server.sent).toHaveLength(1);
      expect(server.retries).toEqual([]);
    }
  });
});

describe("typed client: a timeout or a network error is retried, a write with the same idempotency keys", () => {
  it("aborts an attempt that hangs past timeoutMs and resends the same items, keys generated once", async () => {
    const server = fakeServer(["hang", ACCEPTED(2)]);
    const result = await server.client().batch([message("Hello"), { ...message("Again"), idempotency_key: "provider-msg-17" }]);

    expect(result.response.status).toBe(200);
    expect(server.sent).toHaveLength(2);
    expect(server.sent[0]?.signal.aborted).toBe(true);
    expect(server.sent[0]?.signal.reason).toBeInstanceOf(RequestTimeoutError);
    expect(server.sent[1]?.body).toBe(server.sent[0]?.body);
    expect(keysOf(server.sent[1]?.body ?? "")).toEqual([expectedKey(), "provider-msg-17"]);
    expect(result.items.map((item) => item.idempotency_key)).toEqual([expectedKey(), "provider-msg-17"]);
    // The attempt timer, the backoff (0.5 × 250 ms), the second attempt's timer.
    expect(server.sleeps).toEqual([TIMEOUT, 125, TIMEOUT]);
    expect(server.retries).toEqual([{ attempt: 1, reason: "timeout", delayMs: 125, newConnection: false }]);
  });

  it("throws the timeout when all 3 attempts hang", async () => {
    const server = fakeServer(["hang", "hang", "hang"]);
    await expect(server.client().batch([message("Hello")])).rejects.toBeInstanceOf(RequestTimeoutError);
    expect(server.sent).toHaveLength(3);
    expect(new Set(server.sent.map((request) => request.body)).size).toBe(1);
    expect(server.delays()).toEqual([125, 250]);
  });

  it("retries a network error with backoff, feedback keyed like a batch", async () => {
    const server = fakeServer(["network", ACCEPTED(1)]);
    const result = await server.client().feedback([{ action: "retract_fact", fact_id: "f-1" }]);

    expect(result.response.status).toBe(200);
    expect(server.sent).toHaveLength(2);
    expect(keysOf(server.sent[0]?.body ?? "")).toEqual([expectedKey()]);
    expect(server.sent[1]?.body).toBe(server.sent[0]?.body);
    expect(server.retries).toEqual([{ attempt: 1, reason: "network", delayMs: 125, newConnection: false }]);
  });

  it("stops when the caller aborts, without a further attempt", async () => {
    const server = fakeServer([problem(503, "unavailable"), ACCEPTED(1)]);
    const caller = new AbortController();
    const client = server.client({
      onRetry: () => caller.abort(new Error("caller gave up")),
    });
    await expect(client.batch([message("Hello")], { signal: caller.signal })).rejects.toThrow("caller gave up");
    expect(server.sent).toHaveLength(1);
  });
});

describe("typed client: requests, keys and stamps", () => {
  it("sends the key as a bearer token to the space's base URL", async () => {
    const server = fakeServer([ok({ unchanged: true, etag: "e-1" })]);
    const result = await server.client().context({ handle: { type: "email", value: "a@example.com" }, known_etag: "e-1" });

    expect(result.data).toEqual({ unchanged: true, etag: "e-1" });
    expect(server.sent[0]).toMatchObject({ method: "POST", url: `${BASE}/v1/context`, authorization: `Bearer ${KEY}` });
  });

  it("stamps a context answer with its etag and the injected clock", () => {
    const server = fakeServer([]);
    expect(server.client().stampFrom({ etag: "3f2a" })).toEqual({ etag: "3f2a", injected_at: "2026-11-23T20:00:00.000Z" });
  });

  it("makes UUID v7 keys: version and variant bits, sorted by time", () => {
    let draws = 0;
    const random = () => (draws++ % 7) / 7;
    const first = uuidv7(() => NOW, random);
    const second = uuidv7(() => NOW + 1, random);
    expect(first).toMatch(UUID_V7);
    expect(second).toMatch(UUID_V7);
    expect(first < second).toBe(true);
    expect(
      uuidv7(
        () => NOW,
        () => 0.5,
      ),
    ).toBe(expectedKey());
  });

  it("caps the backoff at maxDelayMs and reads Retry-After forms", () => {
    const almostOne = () => 0.999_999;
    expect([1, 2, 3, 4, 5, 6, 7].map((attempt) => backoff(attempt, DEFAULT_POLICY, almostOne))).toEqual([
      249, 499, 999, 1999, 3999, 7999, 7999,
    ]);
    expect(backoff(1, DEFAULT_POLICY, () => 0)).toBe(0);
    expect(retryAfterMs("0", NOW)).toBe(0);
    expect(retryAfterMs(" 7 ", NOW)).toBe(7000);
    expect(retryAfterMs(new Date(NOW - 5000).toUTCString(), NOW)).toBe(0);
    expect(retryAfterMs("soon", NOW)).toBeNull();
    expect(retryAfterMs(null, NOW)).toBeNull();
  });
});
