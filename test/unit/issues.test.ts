import { z } from "@hono/zod-openapi";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ActionEventSchema,
  BatchEnvelopeSchema,
  BatchItemSchema,
  ConversationEndedItemSchema,
  EventItemSchema,
  HandoffItemSchema,
  HeartbeatItemSchema,
  IdentifyItemSchema,
  MessageEventSchema,
  SystemEventSchema,
  TaskEndedItemSchema,
  VerifyItemSchema,
} from "../../src/contract/batch";
import { AttributesSchema, IdempotencyHeaderSchema } from "../../src/contract/common";
import { ContextInputSchema } from "../../src/contract/context";
import { SourceInputSchema } from "../../src/contract/control";
import { FeedbackItemSchema } from "../../src/contract/feedback";
import { LinkInputSchema } from "../../src/contract/identity";
import { describeIssues, parseOrRefuse } from "../../src/http/issues";
import { Problem } from "../../src/http/problem";
import { TEMPLATES, type Template, validItem } from "../support/batch-items";
import { runs } from "../support/property-runs";

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
  const wheres = new Set(parts.filter((part) => !part.startsWith("and ")).map((part) => part.slice(0, part.lastIndexOf(": "))));
  const unions = issues.filter((issue) => issue.code === "invalid_union" && issue.discriminator === undefined);
  if (unions.length === 0) {
    // One part per distinct (path, type) of the first ten issues, and the paths are the sanitised ones.
    expect(wheres).toEqual(new Set(issues.slice(0, 10).map((issue) => expectedWhere(issue.path))));
    if (issues.length > 10) expect(parts.at(-1)).toBe(`and ${issues.length - 10} more`);
    else expect(parts.some((part) => part.startsWith("and "))).toBe(false);
  } else {
    // A union may be described by its closest option: then a part names a place inside the union's.
    const known = new Set(issues.map((issue) => expectedWhere(issue.path)));
    const inside = unions.map((issue) => expectedWhere(issue.path));
    for (const where of wheres) {
      const placed = known.has(where) || inside.some((union) => union === "body" || where.startsWith(`${union}.`));
      expect(placed, `${where} in ${detail}`).toBe(true);
    }
  }
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
      { numRuns: runs(1500) },
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
      { numRuns: runs(1000) },
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
      { numRuns: runs(200) },
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
      { numRuns: runs(300) },
    );
  });
});

/** The detail a schema's refusal of `input` gives, as the routes and item checks write it. */
function detailOf(schema: z.ZodType, input: unknown, root = "item"): string | null {
  const parsed = schema.safeParse(input);
  return parsed.success ? null : describeIssues(schema, parsed.error.issues, "", root, input);
}

const OBJECT_OF: Record<Template, z.ZodObject> = {
  message: MessageEventSchema,
  system_event: SystemEventSchema,
  action: ActionEventSchema,
  identify: IdentifyItemSchema,
  verify: VerifyItemSchema,
  "conversation.ended": ConversationEndedItemSchema,
  "task.ended": TaskEndedItemSchema,
  handoff: HandoffItemSchema,
  heartbeat: HeartbeatItemSchema,
};

/** The fields an object schema needs: neither optional nor with a default. */
function requiredFields(schema: z.ZodObject): string[] {
  return Object.entries(schema.shape)
    .filter(([, field]) => (field as z.ZodType)._zod.optin !== "optional")
    .map(([name]) => name);
}

const FEEDBACK_ITEMS: Record<string, unknown>[] = [
  { action: "retract_fact", fact_id: "f-1", idempotency_key: "fb-1" },
  { action: "correct_fact", fact_id: "f-1", value: "Gold", idempotency_key: "fb-2" },
  { action: "resolve_open_item", open_item_id: "o-1", idempotency_key: "fb-3" },
  { action: "conversation_outcome", conversation_id: "c-1", value: "resolved", idempotency_key: "fb-4" },
];

/** Bodies whose fields are checked in one pass: a valid one of each, with the schema that checks it. */
const BODIES: [string, z.ZodType, Record<string, unknown>][] = [
  [
    "link",
    LinkInputSchema,
    {
      person: { handle: { type: "email", value: "ana@example.com" } },
      organization: { profile_id: crypto.randomUUID() },
      kind: "account",
    },
  ],
  ["context", ContextInputSchema, { handle: { type: "phone_e164", value: "+15555550100" } }],
  ["source", SourceInputSchema, { name: "Agent", kind: "agent", verification_ceiling: "V1" }],
];

describe("describeIssues: a missing field is `required`, whatever its type", () => {
  it("names every required field of every item type `required` when it is left out, and nothing else", () => {
    fc.assert(
      fc.property(fc.constantFrom(...TEMPLATES), fc.nat(), (template, pick) => {
        const item = validItem(template);
        // Without `kind` an event is a message, the default kind: another item, not a missing field.
        const fields = requiredFields(OBJECT_OF[template]).filter((name) => name in item && name !== "kind");
        const field = fields[pick % fields.length] as string;
        const { [field]: _left, ...rest } = item;
        expect(detailOf(BatchItemSchema, rest), `${template} without ${field}`).toBe(`${field}: required`);
      }),
      { numRuns: runs(300) },
    );
  });

  it("says `required` for an enum, a union's discriminator, a literal and a nested field, as the issue reports them", () => {
    const identify = validItem("identify");
    delete identify.method;
    expect(detailOf(BatchItemSchema, identify)).toBe("method: required");
    const { type: _type, ...untyped } = validItem("message");
    expect(detailOf(BatchItemSchema, untyped)).toBe("type: required");
    const handoff = validItem("handoff");
    handoff.to = {};
    expect(detailOf(BatchItemSchema, handoff)).toBe("to.role: required");
    const verify = validItem("verify");
    delete verify.level;
    expect(detailOf(BatchItemSchema, verify)).toBe("level: required");
    for (const item of FEEDBACK_ITEMS) {
      const { action: _action, ...without } = item;
      expect(detailOf(FeedbackItemSchema, without), JSON.stringify(item)).toBe("action: required");
    }
    const outcome = { ...FEEDBACK_ITEMS[3] };
    delete outcome.value;
    expect(detailOf(FeedbackItemSchema, outcome)).toBe("value: required");
  });

  it("says `required` for every required field of the bodies, with the schema or without it (the control routes' hook)", () => {
    for (const [name, schema, body] of BODIES) {
      expect(schema.safeParse(body).success, name).toBe(true);
      for (const field of requiredFields(schema as unknown as z.ZodObject)) {
        const { [field]: _left, ...rest } = body;
        const parsed = schema.safeParse(rest);
        expect(parsed.success, `${name} without ${field}`).toBe(false);
        if (parsed.success) continue;
        expect(describeIssues(schema, parsed.error.issues, "", "body", rest)).toBe(`${field}: required`);
        expect(describeIssues(undefined, parsed.error.issues, "", "body", rest)).toBe(`${field}: required`);
      }
    }
    const thrown = (() => {
      try {
        parseOrRefuse(SourceInputSchema, { name: "Agent" });
      } catch (error) {
        return error;
      }
    })();
    expect(thrown).toBeInstanceOf(Problem);
    expect((thrown as Problem).detail).toBe("kind: required");
  });

  it("says `required` only when the field is absent: a given value of any kind is judged as given", () => {
    fc.assert(
      fc.property(fc.constantFrom(...TEMPLATES), fc.nat(), hostileValue, (template, pick, value) => {
        const item = validItem(template);
        const fields = requiredFields(OBJECT_OF[template]).filter((name) => name in item && name !== "type");
        const field = fields[pick % fields.length] as string;
        const detail = detailOf(BatchItemSchema, { ...item, [field]: value });
        if (detail !== null) expect(detail).not.toContain(`${field}: required`);
      }),
      { numRuns: runs(300) },
    );
  });

  it("says `required` for an absent or empty Idempotency-Key header, and names the rule it breaks otherwise", () => {
    const describe = (value: string | undefined) => {
      const header = { "idempotency-key": value };
      const parsed = IdempotencyHeaderSchema.safeParse(header);
      return parsed.success ? null : describeIssues(IdempotencyHeaderSchema, parsed.error.issues, "header", "header", header);
    };
    expect(describe(undefined)).toBe("header.idempotency-key: required");
    expect(describe("")).toBe("header.idempotency-key: required");
    expect(describe("k".repeat(257))).toBe("header.idempotency-key: too_big");
    expect(describe("k\u00e9")).toBe("header.idempotency-key: invalid_format");
    expect(describe("k k")).toBeNull();
    expect(describe("k".repeat(256))).toBeNull();
  });
});

/** Independent ways to break one field of a message each, with the part of the detail each gives, in the schema's order. */
const BREAKERS: { part: string; apply: (item: Record<string, unknown>) => void }[] = [
  { part: "idempotency_key: too_small", apply: (item) => Object.assign(item, { idempotency_key: "" }) },
  { part: "channel: invalid_value", apply: (item) => Object.assign(item, { channel: "pigeon" }) },
  { part: "conversation_id: too_small", apply: (item) => Object.assign(item, { conversation_id: "" }) },
  {
    part: "handles.0.value: phone_not_normalizable",
    apply: (item) => ((item.handles as Record<string, unknown>[])[0] = { type: "phone_e164", value: "+1" }),
  },
  {
    part: "handles.1.value: email_not_normalizable",
    apply: (item) => ((item.handles as Record<string, unknown>[])[1] = { type: "email", value: "no-at-sign" }),
  },
  {
    part: "subject.handle.value: phone_not_normalizable",
    apply: (item) => Object.assign(item, { subject: { handle: { type: "phone_e164", value: "+44 12" } } }),
  },
  { part: "speaker.role: invalid_value", apply: (item) => Object.assign(item, { speaker: { role: "parrot" } }) },
  { part: "attributes.*: invalid_union", apply: (item) => Object.assign(item, { attributes: { tier: { nested: 1 } } }) },
  { part: "occurred_at: invalid_format", apply: (item) => Object.assign(item, { occurred_at: "yesterday" }) },
  {
    part: "content.media_sha256: invalid_format",
    apply: (item) => Object.assign(item, { content: { text: "hi", media_sha256: "x" } }),
  },
  { part: "item: unknown_field", apply: (item) => Object.assign(item, { zz_extra: 1 }) },
];

function messageWithTwoHandles(): Record<string, unknown> {
  const item = validItem("message");
  item.handles = [
    { type: "phone_e164", value: "+15555550100" },
    { type: "email", value: "ana@example.com" },
  ];
  return item;
}

describe("describeIssues: every field's error of an item at once, in the schema's order", () => {
  it("lists each broken field of an event, normalizing included, in one detail whose order follows the schema", () => {
    fc.assert(
      fc.property(fc.subarray(BREAKERS, { minLength: 1, maxLength: 10 }), fc.boolean(), (chosen, reversed) => {
        const item = messageWithTwoHandles();
        for (const breaker of chosen) breaker.apply(item);
        // The order of the item's own keys changes nothing.
        const given = reversed ? Object.fromEntries(Object.entries(item).reverse()) : item;
        const expected = BREAKERS.filter((breaker) => chosen.includes(breaker)).map((breaker) => breaker.part);
        expect(detailOf(BatchItemSchema, given)).toBe(expected.join("; "));
      }),
      { numRuns: runs(400) },
    );
  });

  it("names a bad timestamp and an un-normalizable phone together, and a shape rule with a broken field", () => {
    const item = messageWithTwoHandles();
    item.occurred_at = "2026-02-30T10:00:00Z";
    (item.handles as Record<string, unknown>[])[0] = { type: "phone_e164", value: "+1 555" };
    expect(detailOf(BatchItemSchema, item)).toBe("handles.0.value: phone_not_normalizable; occurred_at: no_such_date");

    const bare = validItem("message");
    delete bare.handles;
    bare.occurred_at = "later";
    expect(detailOf(BatchItemSchema, bare)).toBe("occurred_at: invalid_format; handles: event_needs_handle_subject_or_object");

    const verify = { ...validItem("verify"), conversation_id: undefined, level: "V9" };
    expect(detailOf(BatchItemSchema, verify)).toBe("level: invalid_value; conversation_id: needs_conversation_id_or_task_id");

    const content = validItem("message");
    content.content = { type: "text" };
    content.channel = "pigeon";
    expect(detailOf(BatchItemSchema, content)).toBe("channel: invalid_value; content: message_needs_text_transcript_or_media");
  });

  it("checks a rule only when the fields it reads are valid, so it never judges a refused value", () => {
    // The handle itself is refused: the rule that an event names someone is not checked over it.
    const item = validItem("message");
    item.handles = [{ type: "phone_e164" }];
    expect(detailOf(BatchItemSchema, item)).toBe("handles.0.value: required");
    // A kind that is not one: its ceiling is not judged.
    const source = { name: "Agent", kind: "robot", verification_ceiling: "V4" };
    expect(detailOf(SourceInputSchema, source, "body")).toBe("kind: invalid_value");
    // A phone is normalized only when the handle is well-formed.
    expect(detailOf(BatchItemSchema, { ...validItem("message"), handles: [{ type: "phone_e164", value: "+1", zz: 1 }] })).toBe(
      "handles.0: unknown_field",
    );
  });

  it("describes a union none of whose options fits by the option that came closest", () => {
    const subject = (value: unknown) => {
      const item = validItem("message");
      delete item.handles;
      item.subject = value;
      return detailOf(BatchItemSchema, item);
    };
    expect(subject({ handle: { type: "email" } })).toBe("subject.handle.value: required");
    expect(subject({ handle: { type: "email", value: "x" } })).toBe("subject.handle.value: email_not_normalizable");
    expect(subject({ profile_id: "not-a-uuid" })).toBe("subject.profile_id: invalid_format");
    // Neither option comes closer than the other: the union is named.
    expect(subject({})).toBe("subject: invalid_union");
    expect(subject("someone")).toBe("subject: invalid_union");
  });

  it("answers the same detail for the same input, every time", () => {
    fc.assert(
      fc.property(eventInput, (event) => {
        expect(detailOf(BatchItemSchema, event)).toBe(detailOf(BatchItemSchema, structuredClone(event)));
      }),
      { numRuns: runs(300) },
    );
  });
});
