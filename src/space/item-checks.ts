import { type BatchItem, BatchItemSchema, MAX_ITEM_BYTES } from "../contract/batch";
import type { Scope } from "../contract/common";
import { LEVELS, type Level } from "../contract/common";
import { describeIssues } from "../http/issues";
import type { ItemCode } from "../http/problem";
import { type Handle, normalizeHandle } from "./identity/handles";
import type { SourceRecord } from "./replica";

/** `"__proto__":` in JSON text is that key and nothing else: quotes inside strings are escaped. */
const PROTO_KEY = /"__proto__":/;

export type ItemCheck =
  | {
      ok: true;
      item: BatchItem;
      json: string;
      /** The item's handles, normalized: the subject's handle first, then `handles` in order. */
      handles: Handle[];
    }
  | { ok: false; code: ItemCode; detail: string };

/**
 * Everything that decides whether one item may go in, in SPEC's order: size, shape, the key's
 * item scopes (DESIGN 3.2), then what the source allows (act operations, verification ceiling).
 */
export function checkItem(raw: unknown, scopes: readonly Scope[], source: SourceRecord): ItemCheck {
  const json = JSON.stringify(raw) ?? "";
  if (isOverItemLimit(json)) {
    return { ok: false, code: "too_large", detail: `item is larger than ${MAX_ITEM_BYTES} bytes` };
  }
  // zod's records skip an own `__proto__` key without checking what is under it; the item's
  // other errors are named with it, all in one answer.
  const forbidden = PROTO_KEY.test(json);
  const parsed = BatchItemSchema.safeParse(raw);
  if (forbidden || !parsed.success) {
    const parts = forbidden ? ["item: forbidden_key"] : [];
    if (!parsed.success) parts.push(describeIssues(BatchItemSchema, parsed.error.issues, "", "item", raw));
    return { ok: false, code: "invalid_input", detail: parts.join("; ") };
  }
  const item = parsed.data;
  const handles = normalizedHandles(item);
  if (!handles.ok) return { ok: false, code: "invalid_input", detail: handles.detail };

  const scope = itemScope(item);
  if (!scopes.includes(scope)) {
    return { ok: false, code: "scope_missing", detail: `a ${describe(item)} item needs scope ${scope}` };
  }
  if (item.type === "event" && item.action) {
    const { operations, objectTypes } = source.act;
    if (!operations.includes(item.action.operation) || !objectTypes.includes(item.action.object_type)) {
      return { ok: false, code: "operation_not_allowed", detail: "the source does not allow this operation or object type" };
    }
  }
  if (item.type === "verify" && !withinCeiling(item.level, source.verificationCeiling)) {
    return {
      ok: false,
      code: "verification_not_allowed",
      detail: `level is above the source's ceiling ${source.verificationCeiling}`,
    };
  }
  // Stored as parsed: timestamps in UTC, defaults filled in (DESIGN 3.4).
  return { ok: true, item, json: JSON.stringify(item), handles: handles.handles };
}

/** A phone or e-mail that cannot be normalized refuses the item, naming the field and never the value. */
function normalizedHandles(item: BatchItem): { ok: true; handles: Handle[] } | { ok: false; detail: string } {
  const named: [string, { type: string; value: string; scope?: string | undefined }][] = [];
  if (item.type === "event" && item.subject && "handle" in item.subject) named.push(["subject.handle", item.subject.handle]);
  if ("handles" in item) {
    for (const [index, handle] of (item.handles ?? []).entries()) named.push([`handles.${index}`, handle]);
  }
  const handles: Handle[] = [];
  for (const [path, input] of named) {
    const normalized = normalizeHandle(input);
    if (!normalized.ok) return { ok: false, detail: `${path}.value: ${normalized.rule}` };
    handles.push(normalized.handle);
  }
  return { ok: true, handles };
}

/** The scope an item needs beyond `track` (DESIGN 3.2). */
function itemScope(item: BatchItem): Scope {
  if (item.type === "event" && item.kind === "action") return "act";
  if (item.type === "identify" || item.type === "verify") return "identify";
  return "track";
}

function describe(item: BatchItem): string {
  return item.type === "event" ? `${item.kind} event` : item.type;
}

/** `no_customer` is outside the V0-V4 scale: every source may say it. */
export function withinCeiling(level: Level, ceiling: Level): boolean {
  if (level === "no_customer") return true;
  return LEVELS.indexOf(level) <= LEVELS.indexOf(ceiling);
}

/** An item's size is its UTF-8 JSON length (DESIGN 3.4); short strings cannot be over it. */
function isOverItemLimit(json: string): boolean {
  if (json.length * 3 <= MAX_ITEM_BYTES) return false;
  return new TextEncoder().encode(json).byteLength > MAX_ITEM_BYTES;
}
