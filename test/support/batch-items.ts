import fc from "fast-check";
import { DELETE, fresh, hostileKey, hostileScalar, markedJson, marker, ownObject, setOwn } from "./hostile";
import { message } from "./seed";

/**
 * A model of POST /v1/batch input for the property tests: valid items of every kind, hostile
 * items and envelopes built from them, and what the service must answer for each.
 */

/** What BatchEnvelopeSchema accepts: an object whose only key is `items`, an array of 1 to 500. */
export function isValidEnvelope(value: unknown): value is { items: unknown[] } {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  const items = (value as { items?: unknown }).items;
  return keys.length === 1 && keys[0] === "items" && Array.isArray(items) && items.length >= 1 && items.length <= 500;
}

export const TEMPLATES = [
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
export type Template = (typeof TEMPLATES)[number];

/** A valid item of each kind for the test source (act: create/promise on order; ceiling V2). */
export function validItem(template: Template): Record<string, unknown> {
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

type ItemSpec =
  | { kind: "valid"; template: Template }
  | { kind: "mutated"; template: Template; field: string; value: unknown }
  | { kind: "junk"; value: unknown }
  | { kind: "extra"; template: Template; key: string; value: unknown }
  | { kind: "deep"; template: Template; field: string; value: unknown }
  | { kind: "attributes"; entries: [string, unknown][]; systemEvent: boolean };

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

/** Nesting far deeper than any schema: arrays, or objects under marked keys. */
const deepValue = fc
  .record({ depth: fc.integer({ min: 20, max: 3000 }), arrays: fc.boolean(), key: marker, leaf: hostileScalar })
  .map(({ depth, arrays, key, leaf }) => {
    let value: unknown = leaf;
    for (let i = 0; i < depth; i++) value = arrays ? [value] : ownObject([[key, value]]);
    return value;
  });

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
      .record({
        entries: fc.array(fc.tuple(attributeKey, attributeValue), { minLength: 1, maxLength: 5 }),
        // A system event's attribute names are read as traits and facts, a message's only kept.
        systemEvent: fc.boolean(),
      })
      .map((spec): ItemSpec => ({ kind: "attributes", ...spec })),
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
      const kind = spec.systemEvent ? { kind: "system_event", canonical_type: "customer.updated" } : {};
      const item = message({ idempotency_key: fresh("attr"), ...kind, attributes });
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

export const envelopeSpec: fc.Arbitrary<EnvelopeSpec> = fc.oneof(
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

export function buildEnvelope(spec: EnvelopeSpec): { text: string; expectations: ItemExpectation[] | null } {
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
export function longStrings(value: unknown, out: string[] = []): string[] {
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
