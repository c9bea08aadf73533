import type { z } from "@hono/zod-openapi";

/**
 * Turns zod issues into a `detail` that lists field paths and error types, never values and
 * never a key name the client made up: a path is followed through the schema, and a segment the
 * schema does not declare (a record key, an unknown field) is written `*`.
 */
export function describeIssues(
  schema: z.ZodType | undefined,
  issues: readonly z.core.$ZodIssue[],
  prefix = "",
  root = "body",
): string {
  const parts = new Set<string>();
  for (const issue of issues.slice(0, 10)) {
    const path = safePath(schema, issue.path);
    const where = [prefix, path].filter(Boolean).join(".");
    parts.add(`${where || root}: ${issueType(issue)}`);
  }
  if (issues.length > 10) parts.add(`and ${issues.length - 10} more`);
  return [...parts].join("; ");
}

function issueType(issue: z.core.$ZodIssue): string {
  if (issue.code === "unrecognized_keys") return "unknown_field";
  // zod 4 leaves `input` out of issues; its message says when nothing was given.
  if (issue.code === "invalid_type" && issue.message.endsWith("received undefined")) return "required";
  if (issue.code === "custom") return typeof issue.params?.rule === "string" ? issue.params.rule : "invalid";
  return issue.code;
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

function child(schema: unknown, segment: PropertyKey): unknown {
  const def = defOf(unwrapSchema(schema));
  if (!def) return undefined;
  switch (def.type) {
    case "object": {
      const shape = def.shape as Record<string, unknown>;
      return typeof segment === "string" && Object.hasOwn(shape, segment) ? shape[segment] : undefined;
    }
    case "array":
      return typeof segment === "number" ? def.element : undefined;
    case "union":
      for (const option of def.options as unknown[]) {
        const found = child(option, segment);
        if (found) return found;
      }
      return undefined;
    default:
      return undefined;
  }
}

/** Without a schema to follow, only a plain field name passes. */
const FIELD_NAME = /^[a-z][a-z0-9_-]{0,63}$/;

function safePath(schema: z.ZodType | undefined, path: readonly PropertyKey[]): string {
  if (!schema)
    return path
      .map((segment) => (typeof segment === "number" || FIELD_NAME.test(String(segment)) ? String(segment) : "*"))
      .join(".");
  const out: string[] = [];
  let current: unknown = schema;
  for (const segment of path) {
    const next = current === undefined ? undefined : child(current, segment);
    if (next === undefined) {
      out.push(typeof segment === "number" ? String(segment) : "*");
      current = undefined;
      continue;
    }
    out.push(String(segment));
    current = next;
  }
  return out.join(".");
}
