import type { Schema, SchemaSet } from "./json-schema";

/** One declared constraint broken at one place of a valid value. */
export interface Violation {
  /** Where: the field broken, or the object that received an unknown field. */
  path: (string | number)[];
  what: string;
  value: unknown;
}

const UNKNOWN_FIELD = "zz_unknown_field";

/**
 * Every single-constraint violation of `value` (valid against `schema`) this walk knows how to
 * make: a required field removed, an unknown field added, a wrong type, a string or number out
 * of range, a value outside an enum or a pattern, an array too short or too long or naming an element twice. A candidate
 * can still be valid (a field an alternative did not need): `isViolation` tells, and is checked
 * only for the candidate a test picks, since validating every one is slow.
 */
export function violationsOf(set: SchemaSet, schema: Schema, value: unknown): Violation[] {
  const out: Violation[] = [];
  walk(set, schema, value, [], (at, what, replacement, place = at) =>
    out.push({ path: place, what, value: replaceAt(value, at, replacement) }),
  );
  return out;
}

export function isViolation(set: SchemaSet, schema: Schema, violation: Violation): boolean {
  return !set.valid(schema, violation.value);
}

/** `at` is where the replacement goes; `place` the field the violation is about, when not `at`. */
type Emit = (at: (string | number)[], what: string, replacement: unknown, place?: (string | number)[]) => void;

function walk(set: SchemaSet, schema: Schema, value: unknown, path: (string | number)[], emit: Emit): void {
  const node = set.resolve(schema);
  const alternatives = (node.anyOf ?? node.oneOf) as Schema[] | undefined;
  if (alternatives && !("properties" in node) && node.type !== "object") {
    const matched = alternatives.find((alternative) => set.valid(alternative, value));
    if (matched) walk(set, matched, value, path, emit);
    return;
  }
  if (Array.isArray(node.enum) || "const" in node) {
    emit(path, "not_in_enum", "zz-not-a-member");
    return;
  }
  if (Array.isArray(value)) {
    const min = Number(node.minItems ?? 0);
    const max = node.maxItems === undefined ? null : Number(node.maxItems);
    if (min > 0) emit(path, "too_few_items", []);
    if (node.uniqueItems === true && value.length > 0) emit(path, "duplicate_items", [...value, value[0]]);
    if (max !== null && max <= 60 && value.length > 0) {
      emit(path, "too_many_items", [...value, ...Array.from({ length: max + 1 - value.length }, () => value[0])]);
    }
    emit(path, "wrong_type", "not-an-array");
    value.forEach((element, index) => {
      walk(set, (node.items as Schema) ?? {}, element, [...path, index], emit);
    });
    return;
  }
  if (value !== null && typeof value === "object") {
    const object = value as Record<string, unknown>;
    for (const name of (node.required as string[]) ?? []) {
      if (name in object) {
        const { [name]: _removed, ...rest } = object;
        emit(path, "missing", rest, [...path, name]);
      }
    }
    if (node.additionalProperties === false || (node.additionalProperties === undefined && "properties" in node)) {
      emit(path, "unknown_field", { ...object, [UNKNOWN_FIELD]: 1 });
    }
    emit(path, "wrong_type", "not-an-object");
    const properties = (node.properties as Record<string, Schema>) ?? {};
    for (const [name, inner] of Object.entries(object)) {
      if (properties[name]) walk(set, properties[name], inner, [...path, name], emit);
    }
    return;
  }
  if (typeof value === "string") {
    if (node.maxLength !== undefined && Number(node.maxLength) < 5000)
      emit(path, "too_long", "x".repeat(Number(node.maxLength) + 1));
    if (Number(node.minLength ?? 0) > 0) emit(path, "too_short", "");
    if (typeof node.pattern === "string" || node.format) emit(path, "bad_format", "\u0001");
    emit(path, "wrong_type", 12345);
    return;
  }
  if (typeof value === "number") {
    if (node.maximum !== undefined) emit(path, "too_big", Number(node.maximum) + 1);
    if (node.minimum !== undefined) emit(path, "too_small", Number(node.minimum) - 1);
    if (node.type === "integer") emit(path, "not_integer", 0.5);
    emit(path, "wrong_type", "12");
    return;
  }
  if (typeof value === "boolean") emit(path, "wrong_type", "yes");
}

function replaceAt(root: unknown, path: (string | number)[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  if (Array.isArray(root))
    return root.map((element, index) => (index === head ? replaceAt(element, rest, replacement) : element));
  const object = root as Record<string, unknown>;
  return { ...object, [head as string]: replaceAt(object[head as string], rest, replacement) };
}

/**
 * Whether a `detail` ("path: type; path: type") names the place of a violation: one of its
 * paths is the violation's path, an ancestor of it (a union or a rule names its object) or a
 * descendant (a removed field is named by its own path); `*` stands for any segment.
 */
export function namesPlace(detail: string, root: string, path: (string | number)[]): boolean {
  const wanted = path.map(String);
  return detail.split("; ").some((part) => {
    const where = part.slice(0, part.lastIndexOf(": "));
    if (where === root || wanted.length === 0) return wanted.length <= 1;
    const segments = where.split(".");
    const shared = Math.min(segments.length, wanted.length);
    if (shared === 0) return false;
    for (let at = 0; at < shared; at++) {
      if (segments[at] !== "*" && segments[at] !== wanted[at]) return false;
    }
    return true;
  });
}
