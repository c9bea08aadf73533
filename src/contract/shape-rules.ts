import type { z } from "@hono/zod-openapi";

/**
 * A rule over several fields of one object: the server checks it with `holds`, the document
 * states it with `schema` (JSON Schema), so the two cannot drift apart.
 */
export interface ShapeRule<T> {
  /** The error type written in `detail`. */
  name: string;
  /** The field the `detail` names; none names the object itself. */
  field?: string;
  /** The fields `holds` reads: the rule is checked when none of them is itself refused. */
  reads: (keyof T & string)[];
  holds: (value: T) => boolean;
  /** The error type when it depends on the value, for instance to name an allowed maximum. */
  describe?: (value: T) => string;
  schema: Record<string, unknown>;
}

/**
 * Adds rules to an object schema, stated in the document under `allOf`. A rule is checked in the
 * same pass as the fields, so its error comes with theirs, whenever the fields it reads are
 * valid themselves (a rule over a refused field would judge a value that is not there).
 */
export function withRules<S extends z.ZodObject>(schema: S, rules: ShapeRule<z.output<S>>[]): S {
  return schema
    .superRefine(
      (value, ctx) => {
        const refused = new Set(ctx.issues.map((issue) => issue.path?.[0]));
        for (const rule of rules) {
          if (rule.reads.some((field) => refused.has(field)) || rule.holds(value)) continue;
          const path = rule.field ? [rule.field] : [];
          const name = rule.describe?.(value) ?? rule.name;
          ctx.issues.push({ code: "custom", path, message: name, params: { rule: name }, input: undefined });
        }
      },
      { when: (payload) => payload.value !== null && typeof payload.value === "object" && !Array.isArray(payload.value) },
    )
    .openapi({ allOf: rules.map((rule) => rule.schema) }) as S;
}

/** Given and not empty: a string with a character, an array with an element, any other value. */
function given(value: unknown): boolean {
  if (value === undefined) return false;
  if (typeof value === "string" || Array.isArray(value)) return value.length > 0;
  return true;
}

/** At least one of the fields is given and not empty. */
export function atLeastOne<T extends object>(fields: (keyof T & string)[], name: string, field?: string): ShapeRule<T> {
  return {
    name,
    field,
    reads: fields,
    holds: (value) => fields.some((key) => given(value[key])),
    schema: { anyOf: fields.map((key) => ({ required: [key], properties: { [key]: { minLength: 1, minItems: 1 } } })) },
  };
}

/** Exactly one of the fields is given. */
export function exactlyOne<T extends object>(fields: (keyof T & string)[], name: string, field?: string): ShapeRule<T> {
  return {
    name,
    field,
    reads: fields,
    holds: (value) => fields.filter((key) => value[key] !== undefined).length === 1,
    schema: { oneOf: fields.map((key) => ({ required: [key] })) },
  };
}

/** All of the fields are given, or none is. */
export function together<T extends object>(fields: (keyof T & string)[], name: string, field?: string): ShapeRule<T> {
  return {
    name,
    field: field ?? fields[0],
    reads: fields,
    holds: (value) => new Set(fields.map((key) => value[key] !== undefined)).size === 1,
    schema: {
      oneOf: [{ required: fields }, { properties: Object.fromEntries(fields.map((key) => [key, { not: {} }])) }],
    },
  };
}
