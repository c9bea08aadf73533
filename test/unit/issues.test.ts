import { z } from "@hono/zod-openapi";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BatchEnvelopeSchema,
  BatchItemSchema,
  ConversationEndedItemSchema,
  EventItemSchema,
  HandoffItemSchema,
  HeartbeatItemSchema,
  IdentifyItemSchema,
  TaskEndedItemSchema,
  VerifyItemSchema,
} from "../../src/contract/batch";
import { AttributesSchema } from "../../src/contract/common";
import { describeIssues } from "../../src/http/issues";

/**
 * `describeIssues` turns zod issues into a `detail`: field paths and error types, never a value
 * and never a key the client made up (a record key, an unknown field). Made-up keys and values
 * here carry a marker (`zq` + consonants) or are prototype names, so an echo is unambiguous.
 */

const TAIL_CHARS = [..."bcdfghjklmnprstvwx"];
const MARKER_RE = /zq[bcdfghjklmnprstvwx]{6,}/g;
const PROTO_KEYS = ["__proto__", "constructor", "prototype", "toString", "valueOf", "hasOwnProperty"];

const marker = fc.string({ unit: fc.constantFrom(...TAIL_CHARS), minLength: 6, maxLength: 14 }).map((tail) => `zq${tail}`);
const hostileString = fc.oneof(
  marker,
  fc.tuple(marker, fc.string({ unit: "binary", maxLength: 6 })).map(([m, s]) => m + s),
  fc.tuple(marker, fc.integer({ min: 4000, max: 5000 })).map(([m, n]) => m.repeat(Math.ceil(n / m.length))),
);
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.array(hostileString, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.tuple(marker, hostileString).map(([k, v]) => ({ [k]: v })) },
);
/** Keys a client makes up: markers, very long markers, prototype names. */
const madeUpKey = fc.oneof(
  { weight: 4, arbitrary: marker },
  { weight: 1, arbitrary: marker.map((m) => m.repeat(15)) },
  { weight: 2, arbitrary: fc.constantFrom(...PROTO_KEYS) },
);

function isMadeUp(segment: string): boolean {
  return segment.includes("zq") || PROTO_KEYS.includes(segment);
}

function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function validEvent(): Record<string, unknown> {
  return {
    type: "event",
    idempotency_key: "msg-1",
    kind: "message",
    channel: "whatsapp",
    conversation_id: "conv-1",
    handles: [{ type: "phone_e164", value: "+15555550100" }],
    speaker: { role: "customer" },
    content: { type: "text", text: "Where is my order?" },
    attributes: { tier: "gold" },
    occurred_at: "2026-01-01T10:00:00Z",
  };
}

/** Paths of the event (all declared by the schema) that a mutation may set to a hostile value. */
const DECLARED_PATHS: (string | number)[][] = [
  ["type"],
  ["idempotency_key"],
  ["kind"],
  ["channel"],
  ["conversation_id"],
  ["conversation_aliases"],
  ["task_id"],
  ["handles"],
  ["handles", 0, "type"],
  ["handles", 0, "value"],
  ["handles", 0, "scope"],
  ["subject"],
  ["object"],
  ["speaker"],
  ["speaker", "role"],
  ["content"],
  ["content", "type"],
  ["content", "media_sha256"],
  ["canonical_type"],
  ["action"],
  ["attributes"],
  ["context_stamp"],
  ["occurred_at"],
];
/** Objects of the event where a made-up field may be added. */
const OBJECT_PATHS: (string | number)[][] = [[], ["content"], ["speaker"], ["handles", 0]];

function at(root: unknown, path: readonly (string | number)[]): Record<string, unknown> | undefined {
  let current: unknown = root;
  for (const segment of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return current !== null && typeof current === "object" ? (current as Record<string, unknown>) : undefined;
}

const eventInput = fc
  .record({
    sets: fc.array(fc.tuple(fc.constantFrom(...DECLARED_PATHS), hostileValue), { maxLength: 3 }),
    extras: fc.array(fc.tuple(fc.constantFrom(...OBJECT_PATHS), madeUpKey, hostileValue), { maxLength: 3 }),
    attributes: fc.array(fc.tuple(madeUpKey, hostileValue), { maxLength: 4 }),
    action: fc.option(fc.array(fc.tuple(madeUpKey, hostileValue), { maxLength: 3 }), { nil: undefined }),
  })
  .map(({ sets, extras, attributes, action }) => {
    const event = validEvent();
    for (const [key, value] of attributes) setOwn(event.attributes as Record<string, unknown>, key, value);
    if (action) {
      event.kind = "action";
      const block: Record<string, unknown> = { operation: "create", object_type: "order", object_id: "o-1", attributes: {} };
      for (const [key, value] of action) setOwn(block.attributes as Record<string, unknown>, key, value);
      event.action = block;
    }
    for (const [path, value] of sets) {
      const parent = at(event, path.slice(0, -1));
      if (parent) setOwn(parent, String(path[path.length - 1]), value);
    }
    for (const [path, key, value] of extras) {
      const target = at(event, path);
      if (target) setOwn(target, key, value);
    }
    return event;
  });

/** Every part of a detail: `<path>: <type>`, a path of declared names, indexes and `*`, or the overflow note. */
const PART = /^(?:[a-z][a-z0-9_-]*|\d+|\*)(?:\.(?:[a-z][a-z0-9_-]*|\d+|\*))*: [a-z_]+$|^and \d+ more$/;

/** What a detail may show of a path: a made-up segment, and everything after it, is `*`. */
function expectedWhere(path: readonly PropertyKey[], prefix = ""): string {
  let hidden = false;
  const shown = path.map((segment) => {
    if (typeof segment === "number") return String(segment);
    if (hidden || typeof segment !== "string" || isMadeUp(segment)) {
      hidden = true;
      return "*";
    }
    return segment;
  });
  return [prefix, shown.join(".")].filter(Boolean).join(".") || "body";
}

function leaks(detail: string, input: unknown): string[] {
  const found: string[] = [];
  if (detail.includes("zq")) found.push("zq");
  const tails = new Set<string>();
  for (const match of JSON.stringify(input).matchAll(MARKER_RE)) tails.add(match[0].slice(2));
  for (const tail of tails) {
    for (let i = 0; i + 6 <= tail.length; i++) if (detail.includes(tail.slice(i, i + 6))) found.push(tail.slice(i, i + 6));
  }
  for (const key of PROTO_KEYS) if (detail.includes(key)) found.push(key);
  return found;
}

function checkDetail(schema: z.ZodType, input: unknown): { detail: string; issues: readonly z.core.$ZodIssue[] } | null {
  const parsed = schema.safeParse(input);
  if (parsed.success) return null;
  const issues = parsed.error.issues;
  const detail = describeIssues(schema, issues);
  expect(leaks(detail, input), detail).toEqual([]);
  const parts = detail.split("; ");
  for (const part of parts) expect(part, detail).toMatch(PART);
  // One part per distinct (path, type) of the first ten issues, and the paths are the sanitised ones.
  const wheres = new Set(parts.filter((part) => !part.startsWith("and ")).map((part) => part.slice(0, part.lastIndexOf(": "))));
  expect(wheres).toEqual(new Set(issues.slice(0, 10).map((issue) => expectedWhere(issue.path))));
  if (issues.length > 10) expect(parts.at(-1)).toBe(`and ${issues.length - 10} more`);
  else expect(parts.some((part) => part.startsWith("and "))).toBe(false);
  return { detail, issues };
}

describe("describeIssues", () => {
  it("never shows record keys, made-up fields or values of an event", () => {
    let attributeIssues = 0;
    fc.assert(
      fc.property(eventInput, (event) => {
        const checked = checkDetail(EventItemSchema, event);
        if (!checked) return;
        const firstTen = checked.issues.slice(0, 10);
        if (firstTen.some((issue) => issue.path[0] === "attributes" && issue.path.length > 1)) {
          attributeIssues++;
          expect(checked.detail).toContain("attributes.*: ");
        }
        if (firstTen.some((issue) => issue.code === "unrecognized_keys" && issue.path.length === 0)) {
          expect(checked.detail).toContain("body: unknown_field");
        }
      }),
      { numRuns: 1500 },
    );
    // The interesting case happened: attribute keys were there to be hidden.
    expect(attributeIssues).toBeGreaterThan(50);
  });

  it("never shows made-up keys or values for any item type or the envelope", () => {
    const itemSchemas = {
      event: EventItemSchema,
      identify: IdentifyItemSchema,
      verify: VerifyItemSchema,
      "conversation.ended": ConversationEndedItemSchema,
      "task.ended": TaskEndedItemSchema,
      handoff: HandoffItemSchema,
      heartbeat: HeartbeatItemSchema,
    };
    const schemas = [
      ...Object.entries(itemSchemas),
      ["item", BatchItemSchema] as const,
      ["envelope", BatchEnvelopeSchema] as const,
    ];
    const json: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown; object: Record<string, unknown> }>((tie) => ({
      value: fc.oneof({ depthSize: "small", maxDepth: 3 }, hostileValue, fc.array(tie("value"), { maxLength: 3 }), tie("object")),
      object: fc.array(fc.tuple(madeUpKey, tie("value")), { maxLength: 4 }).map((entries) => {
        const out: Record<string, unknown> = {};
        for (const [key, value] of entries) setOwn(out, key, value);
        return out;
      }),
    })).value;
    const input = fc.record({ type: fc.constantFrom(...Object.keys(itemSchemas)), rest: json }).map(({ type, rest }) => {
      const out: Record<string, unknown> = { type };
      if (rest !== null && typeof rest === "object" && !Array.isArray(rest)) {
        for (const [key, value] of Object.entries(rest)) setOwn(out, key, value);
      }
      return out;
    });
    fc.assert(
      fc.property(fc.constantFrom(...schemas), fc.oneof(input, json), ([, schema], value) => {
        checkDetail(schema, value);
        checkDetail(schema, { items: [value] });
      }),
      { numRuns: 1000 },
    );
  });

  it("lists at most ten issues and counts the rest", () => {
    fc.assert(
      fc.property(fc.uniqueArray(marker, { minLength: 1, maxLength: 30 }), (keys) => {
        const attributes: Record<string, unknown> = {};
        for (const key of keys) attributes[key] = { nested: key };
        const parsed = AttributesSchema.safeParse(attributes);
        expect(parsed.success).toBe(false);
        if (parsed.success) return;
        const issues = parsed.error.issues;
        expect(issues.length).toBe(keys.length);
        const detail = describeIssues(AttributesSchema, issues);
        expect(leaks(detail, attributes)).toEqual([]);
        // All ten listed issues have the same sanitised path and type, so they collapse into one part.
        expect(detail).toBe(keys.length > 10 ? `*: invalid_union; and ${keys.length - 10} more` : "*: invalid_union");
      }),
      { numRuns: 200 },
    );
  });

  it("without a schema, hides every segment that is not a plain lower-case field name", () => {
    const schema = z.record(z.string(), z.string().max(3));
    const oddKey = fc.oneof(
      marker.map((m) => m.toUpperCase()),
      marker.map((m) => `${m}.${m}`),
      marker.map((m) => `${m} ${m}`),
      marker.map((m) => `_${m}`),
      marker.map((m) => m.repeat(10)),
      fc.tuple(marker, fc.constantFrom("é", "😀", "\u0000", "/", ":", ";")).map(([m, c]) => m + c),
      // Not `__proto__`: z.record skips that key altogether, so it raises no issue to describe.
      fc.constantFrom(...PROTO_KEYS.filter((key) => key !== "__proto__" && !/^[a-z][a-z0-9_-]{0,63}$/.test(key))),
    );
    fc.assert(
      fc.property(
        fc.uniqueArray(oddKey, { minLength: 1, maxLength: 5 }),
        fc.constantFrom("", "query", "header"),
        (keys, prefix) => {
          const input: Record<string, unknown> = {};
          for (const key of keys) setOwn(input, key, "zqbcdfghvalue");
          const parsed = schema.safeParse(input);
          expect(parsed.success).toBe(false);
          if (parsed.success) return;
          const detail = describeIssues(undefined, parsed.error.issues, prefix);
          for (const key of keys) expect(detail).not.toContain(key);
          expect(detail.toLowerCase()).not.toContain("zq");
          expect(detail).toBe(`${prefix ? `${prefix}.` : ""}*: too_big`);
        },
      ),
      { numRuns: 300 },
    );
  });
});
