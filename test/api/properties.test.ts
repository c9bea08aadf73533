import { SELF } from "cloudflare:test";
import { z } from "@hono/zod-openapi";
import fc from "fast-check";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatSourceKey, newKeyId, newKeySecret, parseSourceKey, type SourceKey } from "../../src/auth/source-key";
import { SpaceConfigValuesSchema } from "../../src/contract/config";
import { PersonInputSchema, ProjectInputSchema, TenantInputSchema } from "../../src/contract/control";
import { CATALOG, type ProblemCode } from "../../src/http/problem";
import { createSpace, message, OPERATOR_TOKEN, ORIGIN, type Space } from "../support/seed";

/**
 * Property-based hostile input against the Worker. Every response, whatever was sent, must be
 * below 500; every error must be a well-formed problem whose `detail` echoes nothing the test
 * put in the request. Values the test controls carry a marker (`zq` + consonants) so an echo is
 * recognisable without false positives from the service's own words.
 */

const RUNS = {
  jsonBodies: 200,
  markedBodies: 150,
  envelopes: 400,
  itemSize: 14,
  bodySize: 6,
  textBodies: 150,
  contentTypes: 120,
  dataCredentials: 300,
  controlCredentials: 200,
  operatorTokens: 80,
  idempotencyKeys: 100,
  tenantBodies: 120,
  personBodies: 120,
  projectBodies: 120,
  configBodies: 150,
};
const TOTAL_RUNS = Object.values(RUNS).reduce((sum, runs) => sum + runs, 0);

const RUN = Date.now().toString(36);
let requestsSent = 0;
/** Cases of the properties that finished: each sent at least one request per case. */
let completedRuns = 0;
let freshCounter = 0;
const fresh = (label: string) => `${label}-${RUN}-${++freshCounter}`;

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

function expectNoEcho(detail: unknown, sent: string, secrets: readonly string[] = []): void {
  if (detail === null || detail === undefined) return;
  expect(typeof detail).toBe("string");
  expect(echoes(detail as string, sent, secrets), `detail ${JSON.stringify(detail)}`).toEqual([]);
}

// ---------------------------------------------------------------------------------------------
// Sending and the checks every answer must pass
// ---------------------------------------------------------------------------------------------

const TRACEPARENT = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;
const REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

interface Request {
  method: string;
  path: string;
  headers?: Record<string, string | undefined>;
  body?: string | Uint8Array;
  /** Strings (tokens, long values) that must never appear in a detail, besides the markers. */
  secrets?: readonly string[];
}

function httpTrim(value: string): string {
  return value.replace(/^[ \t]+|[ \t]+$/g, "");
}

async function send(request: Request): Promise<Answer> {
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

function bodyText(body: string | Uint8Array | undefined): string {
  if (body === undefined) return "";
  return typeof body === "string" ? body : new TextDecoder().decode(body);
}

function problemCode(answer: Answer): unknown {
  return (answer.body as { code?: unknown } | undefined)?.code;
}

interface BatchAnswer {
  accepted: number;
  duplicates: number;
  errors: { index: number; code: string; detail: string }[];
}

/** A 200/207 batch answer: counts that add up, one error per rejected index, no echo. */
function checkBatchAnswer(answer: Answer, itemCount: number, sent: string): Map<number, { code: string; detail: string }> {
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

/** What BatchEnvelopeSchema accepts: an object whose only key is `items`, an array of 1 to 500. */
function isValidEnvelope(value: unknown): value is { items: unknown[] } {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  const items = (value as { items?: unknown }).items;
  return keys.length === 1 && keys[0] === "items" && Array.isArray(items) && items.length >= 1 && items.length <= 500;
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;
function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  return JSON_MEDIA_TYPE.test((value.split(";", 1)[0] ?? "").trim());
}

// ---------------------------------------------------------------------------------------------
// Arbitraries
// ---------------------------------------------------------------------------------------------

const marker = fc.string({ unit: fc.constantFrom(...TAIL_CHARS), minLength: 6, maxLength: 14 }).map((tail) => `zq${tail}`);
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
const hostileScalar: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: hostileString },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.constantFrom(1e308, -1e308, 2 ** 53 + 2, -1, 0.5, 4096) },
);
const hostileKey = fc.oneof(
  { weight: 4, arbitrary: marker },
  { weight: 2, arbitrary: fc.constantFrom(...PROTO_KEYS) },
  { weight: 1, arbitrary: fc.tuple(marker, exotic).map(([m, e]) => m + e) },
  { weight: 1, arbitrary: marker.map((m) => m.repeat(20)) },
);

/** An object whose keys are own properties, `__proto__` included (a literal would set the prototype). */
function ownObject(entries: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of entries)
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  return out;
}

function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** JSON of marked values and marked or prototype keys; never an object with a valid item `type`. */
const markedJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown; array: unknown[]; object: Record<string, unknown> }>(
  (tie) => ({
    value: fc.oneof({ depthSize: "small", maxDepth: 4 }, hostileScalar, tie("array"), tie("object")),
    array: fc.array(tie("value"), { maxLength: 4 }),
    object: fc.array(fc.tuple(hostileKey, tie("value")), { maxLength: 4 }).map(ownObject),
  }),
).value;

/** Nesting far deeper than any schema: arrays, or objects under marked keys. */
const deepValue = fc
  .record({ depth: fc.integer({ min: 20, max: 3000 }), arrays: fc.boolean(), key: marker, leaf: hostileScalar })
  .map(({ depth, arrays, key, leaf }) => {
    let value: unknown = leaf;
    for (let i = 0; i < depth; i++) value = arrays ? [value] : ownObject([[key, value]]);
    return value;
  });

const printable = fc.string({ unit: "grapheme-ascii", maxLength: 80 });
/** A header value (printable ASCII) carrying a marker. */
const markedHeader = fc.tuple(printable, marker, printable).map(([a, m, b]) => `${a}${m}${b}`);

const hexChar = fc.constantFrom(..."0123456789abcdefABCDEF");
const hex = (length: number) => fc.string({ unit: hexChar, minLength: length, maxLength: length });
const traceparentArb = fc.option(
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

const B64URL = [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"];
const KEY_CHARS = [...B64URL, "."];
const b64uSegment = fc.string({ unit: fc.constantFrom(...B64URL), minLength: 1, maxLength: 60 });

function base64url(text: string): string {
  let binaryText = "";
  for (const byte of new TextEncoder().encode(text)) binaryText += String.fromCharCode(byte);
  return btoa(binaryText).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** Replaces one character of `text` (outside `keep`) by a different one from `alphabet`. */
function substitute(text: string, alphabet: readonly string[], keep: (index: number) => boolean = () => false) {
  return fc
    .tuple(fc.nat({ max: text.length - 1 }), fc.constantFrom(...alphabet))
    .filter(([index, char]) => !keep(index) && text[index] !== char)
    .map(([index, char]) => text.slice(0, index) + char + text.slice(index + 1));
}

// ---------------------------------------------------------------------------------------------
// Batch items
// ---------------------------------------------------------------------------------------------

const TEMPLATES = [
  "message",
  "system_event",
  "action",
  "identify",
  "verify",
  "conversation.ended",
  "task.ended",
  "handoff",
  "heartbeat",
] as const;
type Template = (typeof TEMPLATES)[number];

/** A valid item of each kind for the test source (act: create/promise on order; ceiling V2). */
function validItem(template: Template): Record<string, unknown> {
  const idempotency_key = fresh("item");
  const occurred_at = new Date(Date.now() - 60_000).toISOString();
  switch (template) {
    case "message":
      return message({ idempotency_key });
    case "system_event":
      return message({ idempotency_key, kind: "system_event", canonical_type: "order.shipped" });
    case "action":
      return message({
        idempotency_key,
        kind: "action",
        action: { operation: "create", object_type: "order", object_id: "o-1", attributes: { total: 12.5 } },
      });
    case "identify":
      return {
        type: "identify",
        idempotency_key,
        handles: [
          { type: "phone_e164", value: "+15555550100" },
          { type: "email", value: "someone@example.test" },
        ],
        method: "agent",
      };
    case "verify":
      return { type: "verify", idempotency_key, conversation_id: "conv-1", level: "V1", method: "otp" };
    case "conversation.ended":
      return { type: "conversation.ended", idempotency_key, conversation_id: "conv-1", occurred_at };
    case "task.ended":
      return { type: "task.ended", idempotency_key, task_id: "task-1", occurred_at };
    case "handoff":
      return { type: "handoff", idempotency_key, conversation_id: "conv-1", to: { role: "human_agent" }, occurred_at };
    case "heartbeat":
      return { type: "heartbeat", idempotency_key, day: "2026-01-01", sent: 3 };
  }
}

const EVENT_FIELDS = [
  "attributes",
  "content",
  "handles",
  "subject",
  "speaker",
  "action",
  "context_stamp",
  "channel",
  "kind",
  "object",
];
const DELETE = { delete: true } as const;

type ItemSpec =
  | { kind: "valid"; template: Template }
  | { kind: "mutated"; template: Template; field: string; value: unknown }
  | { kind: "junk"; value: unknown }
  | { kind: "extra"; template: Template; key: string; value: unknown }
  | { kind: "deep"; template: Template; field: string; value: unknown }
  | { kind: "attributes"; entries: [string, unknown][] };

type ItemExpectation = "accept" | "reject" | "any";

const templateArb = fc.constantFrom(...TEMPLATES);
const fieldArb = fc.oneof(
  fc.constantFrom("type", "idempotency_key", "occurred_at", "conversation_id", "task_id"),
  fc.constantFrom(...EVENT_FIELDS),
);
const attributeKey = fc.oneof(
  { weight: 6, arbitrary: hostileKey },
  { weight: 1, arbitrary: fc.constant("") },
  { weight: 1, arbitrary: fc.integer({ min: 120, max: 136 }).map((n) => `zq${"b".repeat(n - 2)}`) },
);
const attributeValue = fc.oneof(
  { weight: 6, arbitrary: hostileScalar },
  { weight: 1, arbitrary: fc.integer({ min: 4090, max: 4100 }).map((n) => `zq${"c".repeat(n - 2)}`) },
  { weight: 1, arbitrary: markedJson },
);

const itemSpec: fc.Arbitrary<ItemSpec> = fc.oneof(
  { weight: 2, arbitrary: templateArb.map((template): ItemSpec => ({ kind: "valid", template })) },
  {
    weight: 4,
    arbitrary: fc
      .record({ template: templateArb, field: fieldArb, value: fc.oneof(hostileScalar, markedJson, fc.constant(DELETE)) })
      .map((spec): ItemSpec => ({ kind: "mutated", ...spec })),
  },
  { weight: 2, arbitrary: markedJson.map((value): ItemSpec => ({ kind: "junk", value })) },
  {
    weight: 1,
    arbitrary: fc
      .record({ template: templateArb, key: hostileKey, value: fc.oneof(hostileScalar, markedJson) })
      .map((spec): ItemSpec => ({ kind: "extra", ...spec })),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({ template: templateArb, field: fieldArb, value: deepValue })
      .map((spec): ItemSpec => ({ kind: "deep", ...spec })),
  },
  {
    weight: 2,
    arbitrary: fc
      .array(fc.tuple(attributeKey, attributeValue), { minLength: 1, maxLength: 5 })
      .map((entries): ItemSpec => ({ kind: "attributes", entries })),
  },
);

/** Whether AttributesSchema accepts these attributes: keys of 1-128, scalar values, strings up to 4096. */
function validAttributes(attributes: Record<string, unknown>): boolean {
  return Object.entries(attributes).every(([key, value]) => {
    if (key.length < 1 || key.length > 128) return false;
    if (typeof value === "string") return value.length <= 4096;
    return value === null || typeof value === "number" || typeof value === "boolean";
  });
}

function buildItem(spec: ItemSpec): { value: unknown; expect: ItemExpectation } {
  switch (spec.kind) {
    case "valid":
      return { value: validItem(spec.template), expect: "accept" };
    case "junk":
      return { value: spec.value, expect: "reject" };
    case "mutated": {
      const item = validItem(spec.template);
      if (spec.value === DELETE) delete item[spec.field];
      else setOwn(item, spec.field, spec.value);
      return { value: item, expect: "any" };
    }
    case "extra": {
      const item = validItem(spec.template);
      setOwn(item, spec.key, spec.value);
      return { value: item, expect: "reject" };
    }
    case "deep": {
      const item = validItem(spec.template);
      setOwn(item, spec.field, spec.value);
      return { value: item, expect: "reject" };
    }
    case "attributes": {
      const attributes = ownObject(spec.entries);
      const item = message({ idempotency_key: fresh("attr"), attributes });
      // An own `__proto__` key is refused whatever is under it (zod's records would skip it).
      if (Object.hasOwn(attributes, "__proto__")) return { value: item, expect: "reject" };
      return { value: item, expect: validAttributes(attributes) ? "accept" : "reject" };
    }
  }
}

type EnvelopeSpec =
  | { shape: "items"; items: ItemSpec[] }
  | { shape: "extraKey"; items: ItemSpec[]; key: string; value: unknown }
  | { shape: "itemsValue"; value: unknown }
  | { shape: "empty" }
  | { shape: "tooMany"; count: number };

const envelopeSpec: fc.Arbitrary<EnvelopeSpec> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.array(itemSpec, { minLength: 1, maxLength: 8 }).map((items): EnvelopeSpec => ({ shape: "items", items })),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({ items: fc.array(itemSpec, { minLength: 1, maxLength: 3 }), key: hostileKey, value: markedJson })
      .map((spec): EnvelopeSpec => ({ shape: "extraKey", ...spec })),
  },
  { weight: 1, arbitrary: markedJson.map((value): EnvelopeSpec => ({ shape: "itemsValue", value })) },
  { weight: 1, arbitrary: fc.constant<EnvelopeSpec>({ shape: "empty" }) },
  { weight: 1, arbitrary: fc.integer({ min: 501, max: 505 }).map((count): EnvelopeSpec => ({ shape: "tooMany", count })) },
);

function buildEnvelope(spec: EnvelopeSpec): { text: string; expectations: ItemExpectation[] | null } {
  switch (spec.shape) {
    case "items":
    case "extraKey": {
      const built = spec.items.map(buildItem);
      const body = ownObject([["items", built.map((item) => item.value)]]);
      if (spec.shape === "extraKey") setOwn(body, spec.key, spec.value);
      return { text: JSON.stringify(body), expectations: built.map((item) => item.expect) };
    }
    case "itemsValue":
      // markedJson never holds an item with a valid type: every item of it is rejected.
      return {
        text: JSON.stringify({ items: spec.value }),
        expectations: Array.isArray(spec.value) ? spec.value.map(() => "reject" as const) : null,
      };
    case "empty":
      return { text: JSON.stringify({ items: [] }), expectations: null };
    case "tooMany":
      return { text: JSON.stringify({ items: Array.from({ length: spec.count }, () => message()) }), expectations: null };
  }
}

/** Strings of at least 12 characters anywhere in a JSON value, keys included. */
function longStrings(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") {
    if (value.length >= 12) out.push(value);
  } else if (Array.isArray(value)) {
    for (const entry of value) longStrings(entry, out);
  } else if (value !== null && typeof value === "object") {
    for (const [key, entry] of Object.entries(value)) {
      if (key.length >= 12) out.push(key);
      longStrings(entry, out);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Control bodies: a valid body with one path set to a hostile value, deleted, or extended
// ---------------------------------------------------------------------------------------------

interface Mutation {
  path: string[];
  value: unknown;
}

function mutate(base: Record<string, unknown>, mutation: Mutation): unknown {
  const copy = structuredClone(base) as Record<string, unknown>;
  let target: Record<string, unknown> = copy;
  const path = mutation.path;
  for (const segment of path.slice(0, -1)) {
    const next = target[segment];
    if (next === null || typeof next !== "object") return copy;
    target = next as Record<string, unknown>;
  }
  const last = path[path.length - 1] as string;
  if (mutation.value === DELETE) delete target[last];
  else setOwn(target, last, mutation.value);
  return copy;
}

function mutationArb(paths: string[][]): fc.Arbitrary<Mutation> {
  const path = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...paths) },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.constantFrom([], ...paths.filter((p) => p.length === 1)), hostileKey).map(([p, k]) => [...p, k]),
    },
  );
  return fc.record({
    path,
    value: fc.oneof(
      { weight: 4, arbitrary: hostileScalar },
      { weight: 2, arbitrary: markedJson },
      { weight: 1, arbitrary: fc.constant(DELETE) },
    ),
  });
}

// ---------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------

let space: Space;
let configSpace: Space;
let adminToken: string;
let parsedKey: SourceKey;
let wrongKeyTokens: string[];

beforeAll(async () => {
  space = await createSpace();
  configSpace = await createSpace();
  adminToken = space.tenant.token;
  const parsed = parseSourceKey(space.key, "cms");
  if (!parsed) throw new Error("the test key does not parse");
  parsedKey = parsed;
  const now = Math.floor(Date.now() / 1000);
  const claims = { tid: space.tenant.tenantId, roles: ["admin"], vendor_sources: [] };
  const sign = (secret: string, iat: number, issuer = "customer-memory-service/control") =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject("zqbcdfghjk-person")
      .setIssuer(issuer)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 900)
      .sign(new TextEncoder().encode(secret));
  wrongKeyTokens = await Promise.all([
    sign("zqwrongsecretvx", now),
    sign("test-jwt-secreT", now),
    sign("", now).catch(() => "zqbcdfgh.zqbcdfgh.zqbcdfgh"),
    sign("zqwrongsecretvx", now - 3600),
    sign("zqwrongsecretvx", now, "zqissuerbcdfg"),
  ]);
}, 60_000);

afterAll(() => {
  expect(TOTAL_RUNS).toBeGreaterThanOrEqual(1000);
  expect(requestsSent).toBeGreaterThanOrEqual(completedRuns);
});

const batchPath = () => `/spaces/${space.name}/v1/batch`;
const jsonHeaders = (extra: Record<string, string | undefined> = {}) => ({
  authorization: `Bearer ${space.key}`,
  "content-type": "application/json",
  ...extra,
});

// ---------------------------------------------------------------------------------------------
// POST /v1/batch: bodies
// ---------------------------------------------------------------------------------------------

describe("POST /v1/batch with hostile bodies", () => {
  it("accepts every valid item template (the baseline the properties rely on)", async () => {
    const items = TEMPLATES.map(validItem);
    const text = JSON.stringify({ items });
    const answer = await send({ method: "POST", path: batchPath(), headers: jsonHeaders(), body: text });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toEqual({ accepted: TEMPLATES.length, duplicates: 0, errors: [] });
  });

  it("answers arbitrary JSON with 422 unless it is an envelope", async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 5 }), traceparentArb, async (value, traceparent) => {
        const text = JSON.stringify(value);
        const answer = await send({
          method: "POST",
          path: batchPath(),
          headers: jsonHeaders({ traceparent }),
          body: text,
          secrets: longStrings(value),
        });
        const parsed = JSON.parse(text) as unknown;
        if (isValidEnvelope(parsed)) checkBatchAnswer(answer, parsed.items.length, text);
        else {
          expect(answer.status).toBe(422);
          expect(problemCode(answer)).toBe("invalid_input");
        }
      }),
      { numRuns: RUNS.jsonBodies },
    );
    completedRuns += RUNS.jsonBodies;
  }, 120_000);

  it("answers marked JSON (prototype keys, unicode, long strings) with 422 and no echo", async () => {
    await fc.assert(
      fc.asyncProperty(markedJson, async (value) => {
        const text = JSON.stringify(value) ?? "null";
        const answer = await send({ method: "POST", path: batchPath(), headers: jsonHeaders(), body: text });
        expect(isValidEnvelope(JSON.parse(text))).toBe(false);
        expect(answer.status).toBe(422);
        expect(problemCode(answer)).toBe("invalid_input");
      }),
      { numRuns: RUNS.markedBodies },
    );
    completedRuns += RUNS.markedBodies;
  }, 120_000);

  it("checks each item of an envelope alone: counts add up, valid items go in, bad ones are listed", async () => {
    await fc.assert(
      fc.asyncProperty(envelopeSpec, async (spec) => {
        const { text, expectations } = buildEnvelope(spec);
        const answer = await send({ method: "POST", path: batchPath(), headers: jsonHeaders(), body: text });
        const parsed = JSON.parse(text) as unknown;
        if (!isValidEnvelope(parsed)) {
          expect(answer.status).toBe(422);
          expect(problemCode(answer)).toBe("invalid_input");
          return;
        }
        const errors = checkBatchAnswer(answer, parsed.items.length, text);
        expect(expectations).not.toBeNull();
        let mustGoIn = 0;
        (expectations ?? []).forEach((expected, index) => {
          const error = errors.get(index);
          if (expected === "accept") {
            mustGoIn++;
            expect(error, `item ${index} should be accepted: ${JSON.stringify(error)}`).toBeUndefined();
          } else if (expected === "reject") {
            expect(error?.code, `item ${index} should be rejected`).toBe("invalid_input");
          }
        });
        const { accepted, duplicates } = answer.body as BatchAnswer;
        expect(accepted + duplicates).toBeGreaterThanOrEqual(mustGoIn);
      }),
      { numRuns: RUNS.envelopes },
    );
    completedRuns += RUNS.envelopes;
  }, 120_000);

  // z.record skips an own `__proto__` key, so anything under `attributes.__proto__` would pass
  // the schema and be stored verbatim: intake refuses the key itself.
  it("rejects an item with the key __proto__ anywhere", async () => {
    const item = JSON.stringify(message()).replace(/}$/, `,"attributes":{"__proto__":{"zqbcdfgh":[1,{"deep":true}]}}}`);
    const body = `{"items":[${item}]}`;
    const answer = await send({ method: "POST", path: batchPath(), headers: jsonHeaders(), body });
    const errors = checkBatchAnswer(answer, 1, body);
    expect(errors.get(0)?.code).toBe("invalid_input");
  });

  it("measures an item in UTF-8 bytes: over 1,000,000 is too_large, at the limit goes in", async () => {
    const units = ["x", "é", "€", "😀"] as const;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: -3, max: 3 }),
        fc.constantFrom(...units),
        marker,
        fc.boolean(),
        async (delta, unit, mark, withNeighbour) => {
          const target = 1_000_000 + delta;
          const item = message({ idempotency_key: fresh("big"), content: { type: "text", text: "" } });
          const baseBytes = new TextEncoder().encode(JSON.stringify(item)).byteLength;
          const unitBytes = new TextEncoder().encode(unit).byteLength;
          const need = target - baseBytes - mark.length;
          const text = mark + unit.repeat(Math.floor(need / unitBytes)) + "x".repeat(need % unitBytes);
          item.content = { type: "text", text };
          const itemJson = JSON.stringify(item);
          expect(new TextEncoder().encode(itemJson).byteLength).toBe(target);
          const items = withNeighbour ? [message(), item] : [item];
          const body = JSON.stringify({ items });
          const answer = await send({ method: "POST", path: batchPath(), headers: jsonHeaders(), body });
          const errors = checkBatchAnswer(answer, items.length, body);
          const index = items.length - 1;
          if (target > 1_000_000) expect(errors.get(index)?.code).toBe("too_large");
          else expect(errors.get(index)).toBeUndefined();
          if (withNeighbour) expect(errors.get(0)).toBeUndefined();
        },
      ),
      { numRuns: RUNS.itemSize },
    );
    completedRuns += RUNS.itemSize;
  }, 120_000);

  it("refuses a body over 2,500,000 bytes whole, and takes one at the limit", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -2, max: 2 }), marker, async (delta, mark) => {
        const target = 2_500_000 + delta;
        const items = [0, 1, 2].map(() => message({ idempotency_key: fresh("body"), content: { type: "text", text: "" } }));
        const empty = JSON.stringify({ items });
        const spare = target - new TextEncoder().encode(empty).byteLength;
        const share = Math.floor(spare / 3);
        items.forEach((item, i) => {
          const length = i === 2 ? spare - 2 * share : share;
          item.content = { type: "text", text: (mark + "x".repeat(length)).slice(0, length) };
        });
        const body = JSON.stringify({ items });
        expect(new TextEncoder().encode(body).byteLength).toBe(target);
        const answer = await send({ method: "POST", path: batchPath(), headers: jsonHeaders(), body });
        if (target > 2_500_000) {
          expect(answer.status).toBe(422);
          expect(problemCode(answer)).toBe("invalid_input");
        } else {
          checkBatchAnswer(answer, 3, body);
          expect(answer.body).toEqual({ accepted: 3, duplicates: 0, errors: [] });
        }
      }),
      { numRuns: RUNS.bodySize },
    );
    completedRuns += RUNS.bodySize;
  }, 120_000);

  it("answers text that is not a JSON envelope, and bytes that are not UTF-8, with 422", async () => {
    const textBody = fc.oneof(
      fc.string({ unit: "binary", maxLength: 200 }),
      printable,
      markedHeader,
      marker.map((m) => `{"items":[{"type":"event","${m}":`),
      marker.map((m) => `{"items": [${m}]}`),
      fc.constantFrom("", " ", "{", "[]", "null", '{"items":[]}', "\ufeff{}", '{"items":[1],}'),
    );
    const body = fc.oneof(
      { weight: 3, arbitrary: textBody.map((text): string | Uint8Array => text) },
      { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 200 }).map((bytes): string | Uint8Array => bytes) },
    );
    await fc.assert(
      fc.asyncProperty(body, async (raw) => {
        const answer = await send({ method: "POST", path: batchPath(), headers: jsonHeaders(), body: raw });
        const bytes = typeof raw === "string" ? new TextEncoder().encode(raw) : raw;
        let received: string | null;
        try {
          received = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
        } catch {
          received = null;
        }
        const parsed = received === null ? { ok: false as const } : tryParse(received);
        if (parsed.ok && isValidEnvelope(parsed.value)) {
          checkBatchAnswer(answer, parsed.value.items.length, bodyText(raw));
        } else {
          expect(answer.status).toBe(422);
          expect(problemCode(answer)).toBe("invalid_input");
        }
      }),
      { numRuns: RUNS.textBodies },
    );
    completedRuns += RUNS.textBodies;
  }, 120_000);

  it("takes a body only with a JSON Content-Type, whatever else the headers say", async () => {
    const contentType = fc.option(
      fc.oneof(
        fc.constantFrom(
          "application/json",
          "application/json; charset=utf-8",
          "APPLICATION/JSON",
          "application/vnd.api+json",
          "application/problem+json",
          " application/json ",
          "application/json;",
          "application/jsonx",
          "application/x-json",
          "text/json",
          "text/plain",
          "application/x-www-form-urlencoded",
          "multipart/form-data; boundary=zqbcdfgh",
          "application/+json",
          "json",
          "",
        ),
        markedHeader,
        marker.map((m) => `application/${m}+json`),
        marker.map((m) => `application/json; ${m}=${m}`),
      ),
      { nil: undefined },
    );
    const idempotencyKey = fc.option(
      fc.oneof(
        markedHeader,
        fc.constant(""),
        marker.map((m) => m.repeat(40)),
      ),
      { nil: undefined },
    );
    await fc.assert(
      fc.asyncProperty(contentType, idempotencyKey, traceparentArb, async (type, idempotency, traceparent) => {
        const body = JSON.stringify({ items: [message()] });
        const answer = await send({
          method: "POST",
          path: batchPath(),
          headers: { authorization: `Bearer ${space.key}`, "content-type": type, "idempotency-key": idempotency, traceparent },
          body,
        });
        // Without a Content-Type, fetch sends text/plain for a string body.
        if (isJsonContentType(type === undefined ? undefined : httpTrim(type))) {
          checkBatchAnswer(answer, 1, body);
          expect(answer.status).toBe(200);
        } else {
          expect(answer.status).toBe(422);
          expect(problemCode(answer)).toBe("invalid_input");
        }
      }),
      { numRuns: RUNS.contentTypes },
    );
    completedRuns += RUNS.contentTypes;
  }, 120_000);
});

// ---------------------------------------------------------------------------------------------
// Credentials
// ---------------------------------------------------------------------------------------------

const BEARER = /^Bearer[ \t]+([\x21-\x7e]+)[ \t]*$/i;

function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  return BEARER.exec(httpTrim(header))?.[1];
}

/** Tokens an attacker or a careless client might send, built around the real key and token. */
function tokenArb(): fc.Arbitrary<string> {
  const key = space.key;
  const [jwtHeader = "", jwtPayload = "", jwtSignature = ""] = adminToken.split(".");
  const otherMode = parsedKey.mode === "live" ? "test" : "live";
  const forgedClaims = fc
    .record({
      alg: fc.constantFrom("none", "HS256", "HS512", "RS256", "zqbcdfghalg"),
      sub: marker,
      roles: fc.constantFrom(["admin"], ["zqbcdfghrole"], []),
      exp: fc.integer({ min: 0, max: 4_000_000_000 }),
      signature: fc.oneof(fc.constant(""), b64uSegment, fc.constant(jwtSignature)),
    })
    .map(({ alg, sub, roles, exp, signature }) => {
      const header = base64url(JSON.stringify({ alg, typ: "JWT" }));
      const payload = base64url(
        JSON.stringify({
          sub,
          tid: space.tenant.tenantId,
          roles,
          vendor_sources: [],
          iss: "customer-memory-service/control",
          exp,
        }),
      );
      return `${header}.${payload}.${signature}`;
    });
  // The last character of a base64url segment may carry unused bits: changing it need not change the bytes.
  const lastOfSegment = (index: number) =>
    index === adminToken.length - 1 || adminToken[index + 1] === "." || adminToken[index] === ".";
  return fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom(key, adminToken) },
    { weight: 3, arbitrary: substitute(key, KEY_CHARS) },
    { weight: 1, arbitrary: marker.map((name) => formatSourceKey({ ...parsedKey, space: name })) },
    { weight: 1, arbitrary: marker.map((region) => formatSourceKey({ ...parsedKey, region })) },
    { weight: 1, arbitrary: fc.constant(formatSourceKey({ ...parsedKey, mode: otherMode })) },
    {
      weight: 1,
      arbitrary: fc.boolean().map((sameSpace) =>
        formatSourceKey({
          ...parsedKey,
          space: sameSpace ? parsedKey.space : "zqbcdfghsp",
          keyId: newKeyId(),
          secret: newKeySecret(),
        }),
      ),
    },
    { weight: 1, arbitrary: marker.map((prefix) => key.replace(/^cms/, prefix.slice(0, 16))) },
    { weight: 1, arbitrary: fc.nat({ max: key.length - 1 }).map((n) => key.slice(0, n)) },
    { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(...KEY_CHARS), minLength: 1, maxLength: 4 }).map((s) => key + s) },
    { weight: 3, arbitrary: substitute(adminToken, B64URL, lastOfSegment) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(`${jwtHeader}.${jwtPayload}`, `${jwtHeader}.${jwtPayload}.`, `${jwtPayload}.${jwtSignature}`),
    },
    { weight: 2, arbitrary: forgedClaims },
    { weight: 1, arbitrary: fc.constantFrom(...wrongKeyTokens) },
    { weight: 2, arbitrary: fc.tuple(b64uSegment, b64uSegment, b64uSegment).map((parts) => parts.join(".")) },
    { weight: 2, arbitrary: marker },
    { weight: 1, arbitrary: printable },
  );
}

function authorizationArb(): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant(undefined) },
    {
      weight: 8,
      arbitrary: fc
        .tuple(
          fc.constantFrom("Bearer ", "bearer ", "BEARER\t", "Bearer  ", "Token ", "Basic ", "", "Bearer"),
          tokenArb(),
          fc.constantFrom("", "", " ", "\t", " x"),
        )
        .map(([scheme, token, suffix]) => scheme + token + suffix),
    },
    { weight: 1, arbitrary: printable },
    { weight: 1, arbitrary: markedHeader },
  );
}

/** Secrets a detail must never repeat: the real credentials and whatever token was presented. */
function credentialSecrets(header: string | undefined): string[] {
  return [space.key, adminToken, space.key.split("_").at(-1) ?? "", ...(header ? [header, bearerToken(header) ?? ""] : [])];
}

describe("credentials and headers", () => {
  it("POST /v1/batch answers every malformed, mutated or foreign credential with 401 or 403", async () => {
    await fc.assert(
      fc.asyncProperty(authorizationArb(), traceparentArb, async (authorization, traceparent) => {
        const body = JSON.stringify({ items: [message()] });
        const answer = await send({
          method: "POST",
          path: batchPath(),
          headers: { authorization, "content-type": "application/json", traceparent },
          body,
          secrets: credentialSecrets(authorization),
        });
        const token = bearerToken(authorization);
        let expected = 401;
        if (token === space.key) expected = 200;
        else if (token === adminToken) expected = 403;
        else if (token?.startsWith("cms_")) {
          const key = parseSourceKey(token, "cms");
          if (key && key.space !== space.name) expected = 403;
        }
        expect(answer.status, `${authorization} -> ${answer.text}`).toBe(expected);
        if (expected === 200) checkBatchAnswer(answer, 1, body);
        else expect(problemCode(answer)).toBe(expected === 401 ? "unauthenticated" : "forbidden");
      }),
      { numRuns: RUNS.dataCredentials },
    );
    completedRuns += RUNS.dataCredentials;
  }, 120_000);

  it("control routes answer every credential that is not a valid person token with 401 or 403", async () => {
    const routes = [
      { method: "GET", path: () => "/control/v1/users/me", success: 200 },
      { method: "GET", path: () => "/control/v1/people", success: 200 },
      {
        method: "POST",
        path: () => "/control/v1/people",
        body: () => ({ email: `${fresh("p")}@example.test`, password: "correct horse battery staple", roles: ["review"] }),
        success: 201,
      },
      { method: "POST", path: () => "/control/v1/projects", body: () => ({ name: "Project" }), success: 201 },
      {
        method: "POST",
        path: () => `/control/v1/sources/${space.sourceId}/keys`,
        body: () => ({ scopes: ["track"], mode: "test" }),
        idempotent: true,
        success: 201,
      },
    ] as const;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        authorizationArb(),
        traceparentArb,
        async (route, authorization, traceparent) => {
          const body = "body" in route ? JSON.stringify(route.body()) : undefined;
          const answer = await send({
            method: route.method,
            path: route.path(),
            headers: {
              authorization,
              traceparent,
              "content-type": body === undefined ? undefined : "application/json",
              "idempotency-key": "idempotent" in route ? fresh("idem") : undefined,
            },
            body,
            secrets: credentialSecrets(authorization),
          });
          const token = bearerToken(authorization);
          let expected = 401;
          if (token === adminToken) expected = route.success;
          else if (token !== undefined && parseSourceKey(token, "cms")) expected = 403;
          expect(answer.status, `${route.method} ${route.path()} ${authorization} -> ${answer.text}`).toBe(expected);
          if (expected === 401) expect(problemCode(answer)).toBe("unauthenticated");
          if (expected === 403) expect(problemCode(answer)).toBe("forbidden");
        },
      ),
      { numRuns: RUNS.controlCredentials },
    );
    completedRuns += RUNS.controlCredentials;
  }, 120_000);

  it("POST /control/v1/tenants needs the exact operator token", async () => {
    const operator = fc.option(
      fc.oneof(
        { weight: 3, arbitrary: substitute(OPERATOR_TOKEN, [...B64URL, " "]) },
        {
          weight: 1,
          arbitrary: fc.constantFrom(OPERATOR_TOKEN.toUpperCase(), `${OPERATOR_TOKEN}x`, OPERATOR_TOKEN.slice(0, -1), ""),
        },
        { weight: 1, arbitrary: fc.constantFrom(` ${OPERATOR_TOKEN}`, `${OPERATOR_TOKEN}\t`, OPERATOR_TOKEN) },
        { weight: 2, arbitrary: markedHeader },
        { weight: 1, arbitrary: printable },
      ),
      { nil: undefined },
    );
    await fc.assert(
      fc.asyncProperty(operator, authorizationArb(), async (token, authorization) => {
        const body = JSON.stringify({
          name: "Tenant",
          admin: { email: `${fresh("op")}@example.test`, password: "correct horse battery staple" },
        });
        const answer = await send({
          method: "POST",
          path: "/control/v1/tenants",
          headers: { "x-service-operator-token": token, authorization, "content-type": "application/json" },
          body,
          secrets: [OPERATOR_TOKEN, ...(token ? [token] : []), ...credentialSecrets(authorization)],
        });
        const expected = token !== undefined && httpTrim(token) === OPERATOR_TOKEN ? 201 : 401;
        expect(answer.status, `${JSON.stringify(token)} -> ${answer.text}`).toBe(expected);
        if (expected === 401) expect(problemCode(answer)).toBe("unauthenticated");
      }),
      { numRuns: RUNS.operatorTokens },
    );
    completedRuns += RUNS.operatorTokens;
  }, 120_000);

  it("Idempotency-Key of a key creation: 1 to 256 characters, replayed with the same body, 409 with another", async () => {
    const seen = new Map<string, { body: string; keyId: string }>();
    const length = fc.oneof(
      fc.integer({ min: 0, max: 300 }),
      fc.constantFrom(0, 1, 255, 256, 257, 1000),
      fc.integer({ min: 250, max: 260 }),
    );
    const idempotencyKey = fc.tuple(length, marker, printable, fc.boolean()).map(([n, m, filler, padded]) => {
      const base = `${m}-${RUN}-${filler}`;
      const value = base.repeat(Math.ceil(n / Math.max(base.length, 1)) + 1).slice(0, n);
      return padded && value.length > 0 ? ` ${value}\t` : value;
    });
    const reuse = fc.boolean();
    await fc.assert(
      fc.asyncProperty(idempotencyKey, reuse, fc.constantFrom("live", "test"), async (generated, replay, mode) => {
        const previous = [...seen.keys()];
        const header = replay && previous.length > 0 ? (previous[generated.length % previous.length] as string) : generated;
        const body = JSON.stringify({ scopes: ["track"], mode });
        const answer = await send({
          method: "POST",
          path: `/control/v1/sources/${space.sourceId}/keys`,
          headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json", "idempotency-key": header },
          body,
          secrets: [header],
        });
        const effective = httpTrim(header);
        const before = seen.get(effective);
        if (effective.length < 1 || effective.length > 256) {
          expect(answer.status, answer.text).toBe(422);
          expect(problemCode(answer)).toBe("invalid_input");
        } else if (before && before.body !== body) {
          expect(answer.status, answer.text).toBe(409);
          expect(problemCode(answer)).toBe("conflict");
        } else {
          expect(answer.status, answer.text).toBe(201);
          const created = answer.body as { key_id: string; key?: string };
          if (before) expect(created.key_id).toBe(before.keyId);
          else seen.set(effective, { body, keyId: created.key_id });
        }
      }),
      { numRuns: RUNS.idempotencyKeys },
    );
    completedRuns += RUNS.idempotencyKeys;
  }, 120_000);
});

// ---------------------------------------------------------------------------------------------
// Control bodies
// ---------------------------------------------------------------------------------------------

/** A body: marked JSON, or a valid body with one path set, deleted or added. */
function controlBody(valid: () => Record<string, unknown>, paths: string[][]): fc.Arbitrary<() => string> {
  return fc.oneof(
    { weight: 1, arbitrary: markedJson.map((value) => () => JSON.stringify(value) ?? "null") },
    { weight: 3, arbitrary: mutationArb(paths).map((mutation) => () => JSON.stringify(mutate(valid(), mutation))) },
  );
}

function accepts(schema: z.ZodType, text: string): boolean {
  const parsed = tryParse(text);
  return parsed.ok && schema.safeParse(parsed.value).success;
}

describe("control routes with hostile bodies", () => {
  it("POST /control/v1/tenants: 201 or 409 when the schema takes the body, 422 otherwise", async () => {
    const valid = () => ({
      name: "Tenant",
      admin: { email: `${fresh("t")}@example.test`, password: "correct horse battery staple", name: "Admin" },
    });
    const paths = [["name"], ["admin"], ["admin", "email"], ["admin", "password"], ["admin", "name"]];
    await fc.assert(
      fc.asyncProperty(controlBody(valid, paths), async (build) => {
        const body = build();
        const answer = await send({
          method: "POST",
          path: "/control/v1/tenants",
          headers: { "x-service-operator-token": OPERATOR_TOKEN, "content-type": "application/json" },
          body,
        });
        if (accepts(TenantInputSchema, body)) expect([201, 409], answer.text).toContain(answer.status);
        else {
          expect(answer.status, answer.text).toBe(422);
          expect(problemCode(answer)).toBe("invalid_input");
        }
      }),
      { numRuns: RUNS.tenantBodies },
    );
    completedRuns += RUNS.tenantBodies;
  }, 120_000);

  it("POST /control/v1/people: 201 or 409 when the schema takes the body, 422 otherwise", async () => {
    const valid = () => ({
      email: `${fresh("person")}@example.test`,
      password: "correct horse battery staple",
      name: "Person",
      roles: ["review"],
      vendor_sources: [],
    });
    const paths = [["email"], ["password"], ["name"], ["roles"], ["roles", "0"], ["vendor_sources"]];
    await fc.assert(
      fc.asyncProperty(controlBody(valid, paths), async (build) => {
        const body = build();
        const answer = await send({
          method: "POST",
          path: "/control/v1/people",
          headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
          body,
          secrets: [adminToken],
        });
        if (accepts(PersonInputSchema, body)) expect([201, 409], answer.text).toContain(answer.status);
        else {
          expect(answer.status, answer.text).toBe(422);
          expect(problemCode(answer)).toBe("invalid_input");
        }
      }),
      { numRuns: RUNS.personBodies },
    );
    completedRuns += RUNS.personBodies;
  }, 120_000);

  it("POST /control/v1/projects: 201 only for a valid JSON body with a JSON Content-Type", async () => {
    const contentType = fc.oneof(
      { weight: 4, arbitrary: fc.constant("application/json") },
      { weight: 1, arbitrary: fc.constantFrom("text/plain", "application/json; charset=utf-8", "application/x-json", "") },
      { weight: 1, arbitrary: markedHeader },
    );
    await fc.assert(
      fc.asyncProperty(
        controlBody(() => ({ name: "Project" }), [["name"]]),
        contentType,
        async (build, type) => {
          const body = build();
          const answer = await send({
            method: "POST",
            path: "/control/v1/projects",
            headers: { authorization: `Bearer ${adminToken}`, "content-type": type },
            body,
            secrets: [adminToken],
          });
          if (isJsonContentType(httpTrim(type)) && accepts(ProjectInputSchema, body))
            expect(answer.status, answer.text).toBe(201);
          else {
            expect(answer.status, answer.text).toBe(422);
            expect(problemCode(answer)).toBe("invalid_input");
          }
        },
      ),
      { numRuns: RUNS.projectBodies },
    );
    completedRuns += RUNS.projectBodies;
  }, 120_000);

  it("PUT /control/v1/spaces/<id>/config: 200 when the schema takes the values, 422 otherwise", async () => {
    const ConfigBodySchema = z.strictObject({ values: SpaceConfigValuesSchema });
    // Mostly valid values, so both answers occur; a value out of range, of the wrong type or marked otherwise.
    const field = (valid: fc.Arbitrary<unknown>, outOfRange: readonly unknown[]) =>
      fc.oneof(
        { weight: 20, arbitrary: valid },
        { weight: 1, arbitrary: fc.constantFrom(...outOfRange, 0.5, "1", true, null, []) },
        { weight: 1, arbitrary: fc.oneof(hostileScalar, markedJson) },
      );
    const int = (min: number, max: number) => fc.integer({ min, max });
    const windowValue = field(int(1, 7_776_000), [0, -1, 7_776_001]);
    const windows = fc.oneof(
      {
        weight: 10,
        arbitrary: fc.dictionary(
          fc.constantFrom("whatsapp", "app", "voice", "email", "ticket", "crm", "erp", "task"),
          windowValue,
          { maxKeys: 4 },
        ),
      },
      { weight: 1, arbitrary: fc.array(fc.tuple(hostileKey, windowValue), { minLength: 1, maxLength: 2 }).map(ownObject) },
    );
    const values = fc.record(
      {
        clock_tolerance_s: field(int(0, 86_400), [-1, 86_401]),
        session_windows: field(windows, [[], "whatsapp"]),
        hot_tier_budget_mb: field(int(1, 1024), [0, 1025]),
        coverage_tolerance: field(fc.double({ min: 0, max: 1, noNaN: true }), [-0.01, 1.01, 2]),
        silent_after_h: field(int(1, 2160), [0, 2161]),
        history_text_level: field(fc.constantFrom("V0", "V1", "V2", "V3", "V4", "no_customer"), ["v1", "V5", ""]),
        retention_days: field(int(1, 36_500), [0, 36_501]),
        rate_limits: field(
          fc.record(
            { space_per_minute: field(int(1, 1_000_000), [0, -5]), key_per_minute: field(int(1, 1_000_000), [0]) },
            { requiredKeys: [] },
          ),
          [[], 5],
        ),
      },
      { requiredKeys: [] },
    );
    const body = fc.oneof(
      { weight: 4, arbitrary: values.map((v) => JSON.stringify({ values: v })) },
      {
        weight: 1,
        arbitrary: fc.tuple(values, hostileKey, hostileScalar).map(([v, key, value]) => {
          const extended = ownObject(Object.entries(v));
          setOwn(extended, key, value);
          return JSON.stringify({ values: extended });
        }),
      },
      { weight: 1, arbitrary: markedJson.map((v) => JSON.stringify(v) ?? "null") },
    );
    await fc.assert(
      fc.asyncProperty(body, traceparentArb, async (text, traceparent) => {
        const answer = await send({
          method: "PUT",
          path: `/control/v1/spaces/${configSpace.spaceId}/config`,
          headers: { authorization: `Bearer ${configSpace.tenant.token}`, "content-type": "application/json", traceparent },
          body: text,
        });
        if (accepts(ConfigBodySchema, text)) {
          expect(answer.status, answer.text).toBe(200);
          expect((answer.body as { space_id: string }).space_id).toBe(configSpace.spaceId);
        } else {
          expect(answer.status, answer.text).toBe(422);
          expect(problemCode(answer)).toBe("invalid_input");
        }
      }),
      { numRuns: RUNS.configBodies },
    );
    completedRuns += RUNS.configBodies;
  }, 120_000);
});
