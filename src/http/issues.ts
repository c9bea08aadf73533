import type { z } from "@hono/zod-openapi";
import { Problem } from "./problem";

/** Where `describeIssues` is given no input: whether a field was absent is read from zod's message. */
const NO_INPUT = Symbol("no input");

/**
 * Turns zod issues into a `detail` that lists field paths and error types, never values and
 * never a key name the client made up: a path is followed through the schema, and a segment the
 * schema does not declare (a record key, an unknown field) is written `*`. With the `input` that
 * was parsed, a field it lacks is `required` whatever the field's type (an enum, a union's
 * discriminator). A union none of whose options fits is described by the option that came
 * closest when one did (all its issues, each at its own path), else as `invalid_union`. The
 * parts keep zod's order, which follows the schema's fields.
 */
export function describeIssues(
  schema: z.ZodType | undefined,
  issues: readonly z.core.$ZodIssue[],
  prefix = "",
  root = "body",
  input: unknown = NO_INPUT,
): string {
  const flat = withUnionsOpened(issues);
  const parts = new Set<string>();
  for (const issue of flat.slice(0, 10)) {
    const path = safePath(schema, issue.path);
    const where = [prefix, path].filter(Boolean).join(".");
    parts.add(`${where || root}: ${issueType(issue, input)}`);
  }
  if (flat.length > 10) parts.add(`and ${flat.length - 10} more`);
  return [...parts].join("; ");
}

function issueType(issue: z.core.$ZodIssue, input: unknown): string {
  if (issue.code === "unrecognized_keys") return "unknown_field";
  if (issue.code === "custom") return typeof issue.params?.rule === "string" ? issue.params.rule : "invalid";
  // zod 4 leaves `input` out of issues; its message says when nothing was given to a type check.
  if (issue.code === "invalid_type" && issue.message.endsWith("received undefined")) return "required";
  if (input !== NO_INPUT && isAbsent(input, issue.path)) return "required";
  // A discriminated union names the field it dispatches on; its value is simply not one of the options.
  if (issue.code === "invalid_union" && issue.discriminator !== undefined) return "invalid_value";
  return issue.code;
}

/** Whether the object at the parent of `path` lacks the field the path ends with. */
function isAbsent(input: unknown, path: readonly PropertyKey[]): boolean {
  if (path.length === 0) return false;
  let parent: unknown = input;
  for (const segment of path.slice(0, -1)) {
    if (parent === null || typeof parent !== "object") return false;
    parent = (parent as Record<PropertyKey, unknown>)[segment];
  }
  if (parent === null || typeof parent !== "object" || Array.isArray(parent)) return false;
  const key = path[path.length - 1] as PropertyKey;
  return !Object.hasOwn(parent, key) || (parent as Record<PropertyKey, unknown>)[key] === undefined;
}

/**
 * A union's issue replaced by the issues of the option that came closest: the only one with no
 * issue about the value as a whole (its type, its unknown fields) and the fewest issues. When no
 * option gets inside the value, or two come equally close, the union's issue stays.
 */
function withUnionsOpened(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  const out: z.core.$ZodIssue[] = [];
  for (const issue of issues) {
    const closest = issue.code === "invalid_union" && issue.discriminator === undefined ? closestOption(issue.errors) : undefined;
    if (closest) out.push(...withUnionsOpened(closest.map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] }))));
    else out.push(issue);
  }
  return out;
}

function closestOption(options: readonly (readonly z.core.$ZodIssue[])[]): readonly z.core.$ZodIssue[] | undefined {
  const scored = options.map((option) => ({
    option,
    whole: option.filter((issue) => issue.path.length === 0).length,
    count: option.length,
  }));
  const fits = scored.filter((entry) => entry.whole === 0 && entry.count > 0);
  const fewest = Math.min(...fits.map((entry) => entry.count));
  const closest = fits.filter((entry) => entry.count === fewest);
  return closest.length === 1 ? closest[0]?.option : undefined;
}

type Def = { type: string; [key: string]: unknown };

function defOf(schema: unknown): Def | undefined {
  return (schema as { _zod?: { def?: Def } })?._zod?.def;
}

function unwrapSchema(schema: unknown): unknown {
  let current = schema;
  for (let depth = 0; depth < 10; depth++) {
    const def = defOf(current);
    if (!def) return current;
    if (["optional", "nullable", "default", "prefault", "readonly", "catch", "nonoptional"].includes(def.type)) {
      current = def.innerType;
    } else if (def.type === "pipe") {
      current = def.in;
    } else if (def.type === "lazy") {
      current = (def.getter as () => unknown)();
    } else {
      return current;
    }
  }
  return current;
}

/**
 * How much of `path` the schema declares: the number of leading segments that name a declared
 * field or an array index. A union follows the option that declares the most, so a field of one
 * event kind is found even when another kind declares the same name differently.
 */
function declaredDepth(schema: unknown, path: readonly PropertyKey[]): number {
  if (path.length === 0) return 0;
  const def = defOf(unwrapSchema(schema));
  if (!def) return 0;
  const [segment, ...rest] = path;
  switch (def.type) {
    case "object": {
      const shape = def.shape as Record<string, unknown>;
      if (typeof segment !== "string" || !Object.hasOwn(shape, segment)) return 0;
      return 1 + declaredDepth(shape[segment], rest);
    }
    case "array":
      return typeof segment === "number" ? 1 + declaredDepth(def.element, rest) : 0;
    case "union":
      return Math.max(0, ...(def.options as unknown[]).map((option) => declaredDepth(option, path)));
    default:
      return 0;
  }
}

/** Without a schema to follow, only a plain field name passes. */
const FIELD_NAME = /^[a-z][a-z0-9_-]{0,63}$/;

function safePath(schema: z.ZodType | undefined, path: readonly PropertyKey[]): string {
  if (!schema)
    return path
      .map((segment) => (typeof segment === "number" || FIELD_NAME.test(String(segment)) ? String(segment) : "*"))
      .join(".");
  const depth = declaredDepth(schema, path);
  return path.map((segment, at) => (at < depth || typeof segment === "number" ? String(segment) : "*")).join(".");
}

/** The value as the schema parses it, or `422 invalid_input` listing paths and error types. */
export function parseOrRefuse<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Problem("invalid_input", describeIssues(schema, parsed.error.issues, "", "body", value));
  return parsed.data;
}
