import { z } from "@hono/zod-openapi";
// The handles module reads the spelling rules below: a cycle, safe while neither module uses the
// other's bindings as it loads (both only call them later, from functions).
import { EMAIL_SPELLING, normalizeHandle, PHONE_SPELLING } from "../space/identity/handles";

export { TimestampInputSchema, TimestampSchema } from "./timestamp";

export const SCOPES = ["track", "act", "context", "search", "identify", "admin", "analytics"] as const;
export const ScopeSchema = z.enum(SCOPES);
export type Scope = z.infer<typeof ScopeSchema>;

export const ROLES = ["admin", "security", "integration", "review", "analysis", "vendor"] as const;
export const RoleSchema = z.enum(ROLES);
export type Role = z.infer<typeof RoleSchema>;

export const LEVELS = ["V0", "V1", "V2", "V3", "V4", "no_customer"] as const;
export const LevelSchema = z.enum(LEVELS);
export type Level = z.infer<typeof LevelSchema>;

export const CHANNELS = ["whatsapp", "voice", "app", "email", "erp", "crm", "ticket"] as const;
export const ChannelSchema = z.enum(CHANNELS);

/**
 * A string of `min` to `max` characters, counted as JSON Schema counts them (code points), not
 * as JavaScript does (UTF-16 units): twelve emoji are twelve characters, not twenty-four.
 */
/**
 * A map whose keys the client names. zod's records skip an own `__proto__` key, which would drop
 * it without a word; it is refused (`forbidden_key`) before the map is read, as batch items
 * refuse it, and the document says so in `propertyNames`.
 */
export function clientKeyed<T extends z.ZodType>(record: T) {
  return z.preprocess((value, ctx) => {
    if (value !== null && typeof value === "object" && Object.hasOwn(value, "__proto__")) {
      ctx.issues.push({ code: "custom", message: "forbidden_key", params: { rule: "forbidden_key" }, input: value });
    }
    return value;
  }, record);
}

export function text(min: number, max: number) {
  return z
    .string()
    .check((ctx) => {
      const value = ctx.value;
      // Code points are at most the UTF-16 length and at least half of it: count only when it matters.
      if (value.length <= max && value.length >= 2 * min) return;
      const length = codePoints(value);
      if (length < min) {
        ctx.issues.push({ code: "too_small", origin: "string", minimum: min, inclusive: true, input: value, message: "" });
      } else if (length > max) {
        ctx.issues.push({ code: "too_big", origin: "string", maximum: max, inclusive: true, input: value, message: "" });
      }
    })
    .openapi({ minLength: min, maxLength: max });
}

function codePoints(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}

/** A whole number JSON can carry exactly (JSON Schema's `integer`, bounded to what JavaScript holds). */
export function integer(min: number, max: number = Number.MAX_SAFE_INTEGER) {
  return z.number().int().min(min).max(max);
}

/**
 * An integer in a query string: digits only (no `1e2`, no `0x10`), documented as an integer
 * because that is what clients send; its range is checked after the conversion.
 */
export function queryInteger(min: number, max: number) {
  return z
    .string()
    .regex(/^(0|-?[1-9]\d{0,14})$/)
    .transform(Number)
    .pipe(integer(min, max))
    .openapi({ type: "integer", minimum: min, maximum: max });
}

/** A caller-chosen id: conversation, task, object. */
export const ExternalIdSchema = text(1, 512);

/** A lower-case machine name: handle types, operations, object types, canonical types. */
export const SlugSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z][a-z0-9_.-]*$/);

/** Any id in UUID syntax (JSON Schema's `format: uuid`), whatever its version. */
export const UuidSchema = z.guid().openapi({ format: "uuid" });

export const IdentifierSchema = z
  .strictObject({
    type: SlugSchema.openapi({ example: "phone_e164" }),
    value: text(1, 1024),
    scope: text(0, 256).optional(),
  })
  // Normalizing is part of the shape: a phone that is no possible number is refused in the same
  // pass as every other field of the body (on a well-formed handle only), never after it.
  .superRefine(
    (identifier, ctx) => {
      const normalized = normalizeHandle(identifier);
      if (normalized.ok) return;
      const rule = normalized.rule;
      ctx.issues.push({ code: "custom", path: ["value"], message: rule, params: { rule }, input: undefined, continue: true });
    },
    { when: (payload) => payload.issues.length === 0 },
  )
  .openapi("Identifier", {
    description:
      "A handle: `(type, scope, value)`. `phone_e164`: international (`+` or `00`), normalized to E.164 with libphonenumber, and refused (`phone_not_normalizable`) when it is not a possible number for its country. `email`: trimmed and lower-cased. Any other type (`system_id`, ...) is kept exactly as given, within its `scope`.",
    anyOf: [
      { properties: { type: { not: { enum: ["phone_e164", "email"] } } } },
      { properties: { type: { const: "phone_e164" }, value: { pattern: PHONE_SPELLING.source } } },
      { properties: { type: { const: "email" }, value: { pattern: EMAIL_SPELLING.source } } },
    ],
  });

export const ScalarSchema = z.union([text(0, 4096), z.number(), z.boolean(), z.null()]);

/**
 * A flat map of scalars. `__proto__` is refused as a key (zod's records skip it, so the item
 * check refuses it before parsing); the document says so in `propertyNames`.
 */
export const AttributesSchema = z
  .record(text(1, 128), ScalarSchema)
  // zod-to-openapi emits `propertyNames` but its metadata type does not list it.
  .openapi({ propertyNames: { minLength: 1, maxLength: 128, not: { const: "__proto__" } } } as Record<never, never>);

/** Names of spaces and regions: they appear in host names and source keys. */
export const NameSlugSchema = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/);

/** List paging. Unknown parameters are refused, like unknown fields in a body. */
export const PageQuerySchema = z.strictObject({
  cursor: text(1, 512)
    .optional()
    .openapi({ description: "The `next_cursor` of the previous page; one the service did not issue is `422`." }),
  limit: queryInteger(1, 200).optional().default(50).openapi({ default: 50 }),
});

/**
 * An `Idempotency-Key` as a server receives it: 1 to 256 visible ASCII characters, spaces allowed
 * between them. HTTP carries a header's value as bytes (a non-ASCII character arrives as several)
 * and drops the spaces around it, so this is the rule a server can hold a value to exactly as the
 * document states it. Declared once: the document, the control routes' validator and the space's
 * object (which checks it after the credential) all use this schema.
 */
export const IDEMPOTENCY_KEY_PATTERN = /^[!-~](?:[ -~]*[!-~])?$/;
const IDEMPOTENCY_KEY_MAX = 256;

const IDEMPOTENCY_KEY_DESCRIPTION =
  "Required: 1 to 256 visible ASCII characters, spaces allowed between them. Kept 24 hours per caller (source key or person) with the hash of the request: a retry with the same key returns the first answer; the same key with another request is `409 conflict`; another caller's same key is a fresh request.";

export const IdempotencyKeyHeaderSchema = z
  .string()
  .check((ctx) => {
    const value = ctx.value;
    if (value === "") {
      // An empty header names no key: the same as none.
      ctx.issues.push({ code: "custom", message: "required", params: { rule: "required" }, input: value });
    } else if (codePoints(value) > IDEMPOTENCY_KEY_MAX) {
      ctx.issues.push({
        code: "too_big",
        origin: "string",
        maximum: IDEMPOTENCY_KEY_MAX,
        inclusive: true,
        input: value,
        message: "",
      });
    } else if (!IDEMPOTENCY_KEY_PATTERN.test(value)) {
      ctx.issues.push({
        code: "invalid_format",
        format: "regex",
        pattern: IDEMPOTENCY_KEY_PATTERN.source,
        input: value,
        message: "",
      });
    }
  })
  .openapi({
    minLength: 1,
    maxLength: IDEMPOTENCY_KEY_MAX,
    pattern: IDEMPOTENCY_KEY_PATTERN.source,
    description: IDEMPOTENCY_KEY_DESCRIPTION,
  });

/** `Idempotency-Key` of writes that require one (SPEC limits: 1 to 256 characters, kept 24 hours). */
export const IdempotencyHeaderSchema = z.object({ "idempotency-key": IdempotencyKeyHeaderSchema });
