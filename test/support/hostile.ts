import { SELF } from "cloudflare:test";
import fc from "fast-check";
import { afterAll, beforeAll, expect } from "vitest";
import { CATALOG, type ProblemCode } from "../../src/http/problem";
import { ORIGIN } from "./seed";

/**
 * What the property-based hostile-input tests share. Every response, whatever was sent, must be
 * below 500; every error must be a well-formed problem whose `detail` echoes nothing the test
 * put in the request. Values the test controls carry a marker (`zq` + consonants) so an echo is
 * recognisable without false positives from the service's own words.
 */

// Unique per module instance, so test files running side by side never pick the same names.
export const RUN = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
let freshCounter = 0;
export const fresh = (label: string) => `${label}-${RUN}-${++freshCounter}`;

let requestsSent = 0;
/** Requests `send` has made so far (from this module instance). */
export const requestCount = () => requestsSent;

/** Sums a RUNS table: the cases a file's properties run when all of them complete. */
const totalRuns = (runs: Record<string, number>) => Object.values(runs).reduce((sum, n) => sum + n, 0);

/**
 * Registers hooks that check, when the file is done, that every configured run of its properties
 * completed and sent at least one request. Returns what a property calls once it has finished.
 */
export function trackRuns<Name extends string>(runs: Record<Name, number>): (name: Name) => void {
  let completed = 0;
  let before = 0;
  beforeAll(() => {
    before = requestCount();
  });
  afterAll(() => {
    expect(completed).toBe(totalRuns(runs));
    expect(requestCount() - before).toBeGreaterThanOrEqual(completed);
  });
  return (name) => {
    completed += runs[name];
  };
}

/** A mutation value meaning "delete this field". */
export const DELETE = { delete: true } as const;

// ---------------------------------------------------------------------------------------------
// Markers and echo detection
// ---------------------------------------------------------------------------------------------

const TAIL_CHARS = [..."bcdfghjklmnprstvwx"];
const MARKER_RE = /zq[bcdfghjklmnprstvwx]{6,}/g;
const WINDOW = 6;
/** Words the service never needs in a detail: seeing one means a client-chosen key was echoed. */
const PROTO_KEYS = ["__proto__", "constructor", "prototype", "toString", "valueOf", "hasOwnProperty", "__defineGetter__"];

/** Everything in `detail` that came from the request: marker fragments, prototype keys, secrets. */
function echoes(detail: string, sent: string, secrets: readonly string[]): string[] {
  const found: string[] = [];
  if (detail.includes("zq")) found.push("zq");
  const tails = new Set<string>();
  for (const match of sent.matchAll(MARKER_RE)) tails.add(match[0].slice(2));
  for (const tail of tails) {
    for (let i = 0; i + WINDOW <= tail.length; i++) {
      const window = tail.slice(i, i + WINDOW);
      if (detail.includes(window)) found.push(window);
    }
  }
  for (const key of PROTO_KEYS) if (detail.includes(key)) found.push(key);
  for (const secret of secrets) if (secret.length >= 10 && detail.includes(secret)) found.push(secret);
  return found;
}

export function expectNoEcho(detail: unknown, sent: string, secrets: readonly string[] = []): void {
  if (detail === null || detail === undefined) return;
  expect(typeof detail).toBe("string");
  expect(echoes(detail as string, sent, secrets), `detail ${JSON.stringify(detail)}`).toEqual([]);
}

// ---------------------------------------------------------------------------------------------
// Sending and the checks every answer must pass
// ---------------------------------------------------------------------------------------------

const TRACEPARENT = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;
const REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

export interface Request {
  method: string;
  path: string;
  headers?: Record<string, string | undefined>;
  body?: string | Uint8Array;
  /** Strings (tokens, long values) that must never appear in a detail, besides the markers. */
  secrets?: readonly string[];
}

export function httpTrim(value: string): string {
  return value.replace(/^[ \t]+|[ \t]+$/g, "");
}

export async function send(request: Request): Promise<Answer> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers ?? {})) if (value !== undefined) headers[name] = value;
  const response = await SELF.fetch(`${ORIGIN}${request.path}`, { method: request.method, headers, body: request.body });
  requestsSent++;
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const context = `${request.method} ${request.path} -> ${response.status} ${text.slice(0, 300)}`;
  expect(response.status, context).toBeLessThan(500);

  const requestId = response.headers.get("request-id");
  expect(requestId ?? "", context).toMatch(REQUEST_ID);

  // traceparent: the caller's when valid, a fresh valid one otherwise.
  const answered = response.headers.get("traceparent") ?? "";
  expect(answered, context).toMatch(TRACEPARENT);
  const given = headers.traceparent?.trim().toLowerCase();
  if (given !== undefined && TRACEPARENT.test(given)) expect(answered).toBe(given);
  else if (given !== undefined) expect(answered).not.toBe(given);

  if (response.status >= 400) {
    expect(response.headers.get("content-type"), context).toBe("application/problem+json");
    expect(body !== null && typeof body === "object" && !Array.isArray(body), context).toBe(true);
    const problem = body as Record<string, unknown>;
    const code = problem.code;
    expect(typeof code === "string" && Object.hasOwn(CATALOG, code), context).toBe(true);
    const entry = CATALOG[code as ProblemCode];
    expect(problem.status, context).toBe(entry.status);
    expect(response.status, context).toBe(entry.status);
    expect(problem.title, context).toBe(entry.title);
    expect(typeof problem.type === "string" && problem.type.length > 0, context).toBe(true);
    expect(problem.request_id, context).toBe(requestId);
    const sent = [request.path, ...Object.values(headers), bodyText(request.body)].join("\n");
    expectNoEcho(problem.detail, sent, request.secrets);
  }
  return { status: response.status, headers: response.headers, body, text };
}

export function bodyText(body: string | Uint8Array | undefined): string {
  if (body === undefined) return "";
  return typeof body === "string" ? body : new TextDecoder().decode(body);
}

export function problemCode(answer: Answer): unknown {
  return (answer.body as { code?: unknown } | undefined)?.code;
}

export interface BatchAnswer {
  accepted: number;
  duplicates: number;
  errors: { index: number; code: string; detail: string }[];
}

/** A 200/207 batch answer: counts that add up, one error per rejected index, no echo. */
export function checkBatchAnswer(answer: Answer, itemCount: number, sent: string): Map<number, { code: string; detail: string }> {
  expect([200, 207], answer.text.slice(0, 300)).toContain(answer.status);
  expect(answer.headers.get("content-type") ?? "").toMatch(/^application\/json/);
  const { accepted, duplicates, errors } = answer.body as BatchAnswer;
  expect(Number.isInteger(accepted) && accepted >= 0).toBe(true);
  expect(Number.isInteger(duplicates) && duplicates >= 0).toBe(true);
  expect(Array.isArray(errors)).toBe(true);
  expect(accepted + duplicates + errors.length).toBe(itemCount);
  expect(answer.status).toBe(errors.length > 0 ? 207 : 200);
  const byIndex = new Map<number, { code: string; detail: string }>();
  for (const error of errors) {
    expect(Number.isInteger(error.index) && error.index >= 0 && error.index < itemCount).toBe(true);
    expect(byIndex.has(error.index)).toBe(false);
    expect(error.code === "too_large" || Object.hasOwn(CATALOG, error.code), error.code).toBe(true);
    expect(typeof error.detail === "string" && error.detail.length > 0).toBe(true);
    expectNoEcho(error.detail, sent);
    byIndex.set(error.index, error);
  }
  return byIndex;
}

export function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;
export function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  return JSON_MEDIA_TYPE.test((value.split(";", 1)[0] ?? "").trim());
}

// ---------------------------------------------------------------------------------------------
// Arbitraries
// ---------------------------------------------------------------------------------------------

export const marker = fc.string({ unit: fc.constantFrom(...TAIL_CHARS), minLength: 6, maxLength: 14 }).map((tail) => `zq${tail}`);
const exotic = fc.constantFrom(
  "\u0000",
  "\ud800",
  "\udfff",
  "\u202e",
  "\ufeff",
  "😀",
  "é",
  "\n",
  "\\",
  '"',
  "'; DROP TABLE items;--",
  "{{7*7}}",
  "<script>",
  "%s%n",
  "../../etc/passwd",
);
const binary = fc.string({ unit: "binary", maxLength: 12 });
const hostileString = fc.oneof(
  { weight: 3, arbitrary: marker },
  { weight: 1, arbitrary: fc.tuple(marker, binary).map(([m, s]) => m + s) },
  { weight: 1, arbitrary: fc.tuple(binary, marker).map(([s, m]) => s + m) },
  { weight: 1, arbitrary: fc.tuple(marker, exotic).map(([m, e]) => e + m + e) },
  {
    weight: 1,
    arbitrary: fc.tuple(marker, fc.integer({ min: 300, max: 6000 })).map(([m, n]) => m.repeat(Math.ceil(n / m.length))),
  },
);
export const hostileScalar: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: hostileString },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.constantFrom(1e308, -1e308, 2 ** 53 + 2, -1, 0.5, 4096) },
);
export const hostileKey = fc.oneof(
  { weight: 4, arbitrary: marker },
  { weight: 2, arbitrary: fc.constantFrom(...PROTO_KEYS) },
  { weight: 1, arbitrary: fc.tuple(marker, exotic).map(([m, e]) => m + e) },
  { weight: 1, arbitrary: marker.map((m) => m.repeat(20)) },
);

/** An object whose keys are own properties, `__proto__` included (a literal would set the prototype). */
export function ownObject(entries: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of entries)
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  return out;
}

export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** JSON of marked values and marked or prototype keys; never an object with a valid item `type`. */
export const markedJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown; array: unknown[]; object: Record<string, unknown> }>(
  (tie) => ({
    value: fc.oneof({ depthSize: "small", maxDepth: 4 }, hostileScalar, tie("array"), tie("object")),
    array: fc.array(tie("value"), { maxLength: 4 }),
    object: fc.array(fc.tuple(hostileKey, tie("value")), { maxLength: 4 }).map(ownObject),
  }),
).value;

export const printable = fc.string({ unit: "grapheme-ascii", maxLength: 80 });
/** A header value (printable ASCII) carrying a marker. */
export const markedHeader = fc.tuple(printable, marker, printable).map(([a, m, b]) => `${a}${m}${b}`);

const hexChar = fc.constantFrom(..."0123456789abcdefABCDEF");
const hex = (length: number) => fc.string({ unit: hexChar, minLength: length, maxLength: length });
export const traceparentArb = fc.option(
  fc.oneof(
    fc.tuple(hex(32), hex(16), hex(2)).map(([t, s, f]) => `00-${t}-${s}-${f}`),
    fc.tuple(hex(2), hex(32), hex(16), hex(2)).map(([v, t, s, f]) => `${v}-${t}-${s}-${f}`),
    fc.tuple(hex(32), hex(16)).map(([t, s]) => ` 00-${t}-${s}-01\t`),
    fc.constant("00-00000000000000000000000000000000-0000000000000000-01"),
    fc.tuple(hex(31), hex(16)).map(([t, s]) => `00-${t}-${s}-01`),
    markedHeader,
  ),
  { nil: undefined },
);
