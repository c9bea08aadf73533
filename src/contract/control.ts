import { z } from "@hono/zod-openapi";
import {
  clientKeyed,
  LEVELS,
  type Level,
  LevelSchema,
  NameSlugSchema,
  RoleSchema,
  ScopeSchema,
  SlugSchema,
  TimestampInputSchema,
  TimestampSchema,
  text,
  UuidSchema,
} from "./common";
import type { ShapeRule } from "./shape-rules";
import { withRules } from "./shape-rules";

/** A display name: stored as given, with at least one character that is not white space. */
const NameSchema = text(1, 200).regex(/\S/);

/**
 * What an HTML form's `type=email` accepts (the WHATWG rule), declared as a pattern: JSON
 * Schema's `format: email` allows quoted and IP-literal addresses no person logs in with.
 */
const EmailSchema = text(3, 320).regex(
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/,
);
const PasswordSchema = text(12, 256);

/**
 * A list that names each element once: one named twice is refused (`duplicate_items`), since the
 * list is a set (a duplicate once hid a role lost from a change of roles). The document says so
 * with `uniqueItems`.
 */
function setOf<T extends z.ZodType>(item: T, min: number, max: number) {
  return z
    .array(item)
    .min(min)
    .max(max)
    .refine((values) => new Set(values).size === values.length, { params: { rule: "duplicate_items" } })
    .openapi({ uniqueItems: true });
}

export const PersonInputSchema = z
  .strictObject({
    email: EmailSchema,
    password: PasswordSchema,
    name: NameSchema.optional(),
    roles: setOf(RoleSchema, 1, 6),
    vendor_sources: setOf(UuidSchema, 0, 200).optional(),
  })
  .openapi("PersonInput");

export const PersonUpdateSchema = z
  .strictObject({
    name: NameSchema.nullable().optional(),
    roles: PersonInputSchema.shape.roles.optional(),
    vendor_sources: PersonInputSchema.shape.vendor_sources,
  })
  .openapi("PersonUpdate", {
    description:
      "The fields to change; absent ones stay. A change of `roles` or `vendor_sources` ends the person's tokens from the next request on.",
  });

export const PersonSchema = z
  .object({
    person_id: z.string(),
    tenant_id: z.string(),
    email: z.string(),
    name: z.string().nullable(),
    roles: z.array(RoleSchema),
    vendor_sources: z.array(z.string()),
    created_at: TimestampSchema,
  })
  .openapi("Person");

export const TenantInputSchema = z
  .strictObject({
    name: NameSchema,
    admin: z.strictObject({ email: EmailSchema, password: PasswordSchema, name: NameSchema.optional() }),
  })
  .openapi("TenantInput");

export const TenantSchema = z.object({ tenant_id: z.string(), name: z.string(), created_at: TimestampSchema }).openapi("Tenant");

export const TenantCreatedSchema = z.object({ tenant: TenantSchema, admin: PersonSchema }).openapi("TenantCreated");

export const LoginInputSchema = z.strictObject({ email: text(0, 320), password: text(0, 256) }).openapi("LoginInput");

export const LoginAnswerSchema = z.object({ token: z.string(), expires_at: TimestampSchema }).openapi("LoginAnswer");

export const ProjectInputSchema = z.strictObject({ name: NameSchema }).openapi("ProjectInput");

export const ProjectSchema = z
  .object({ project_id: z.string(), tenant_id: z.string(), name: z.string(), created_at: TimestampSchema })
  .openapi("Project");

export const SpaceInputSchema = z.strictObject({ name: NameSlugSchema, region: NameSlugSchema.optional() }).openapi("SpaceInput");

export const SpaceSchema = z
  .object({
    space_id: z.string(),
    tenant_id: z.string(),
    project_id: z.string(),
    name: z.string(),
    region: z.string(),
    base_url: z.string(),
    created_at: TimestampSchema,
  })
  .openapi("Space");

export const SOURCE_KINDS = ["agent", "system", "human_desk", "analyst"] as const;

type SourceKind = (typeof SOURCE_KINDS)[number];

/** The highest ceiling each kind may declare (DESIGN 3.3): agents stop at V2, desks and systems of record reach V4. */
export const KIND_CEILING: Record<SourceKind, Level> = { agent: "V2", system: "V4", human_desk: "V4", analyst: "V0" };

/** V3 needs a source that runs OTP: `otp: true` raises a lower ceiling to V3. */
export function maximumCeiling(kind: SourceKind, otp: boolean): Level {
  const ceiling = KIND_CEILING[kind];
  return otp && LEVELS.indexOf(ceiling) < LEVELS.indexOf("V3") ? "V3" : ceiling;
}

const levelsUpTo = (level: Level) => LEVELS.slice(0, LEVELS.indexOf(level) + 1);

/** Each kind's allowed ceilings, with and without OTP, stated as the combinations the document allows. */
const ceilingWithinKind: ShapeRule<{ kind: SourceKind; otp?: boolean | undefined; verification_ceiling?: Level | undefined }> = {
  name: "above_the_kinds_maximum",
  field: "verification_ceiling",
  reads: ["kind", "otp", "verification_ceiling"],
  holds: ({ kind, otp, verification_ceiling }) =>
    verification_ceiling === undefined || levelsUpTo(maximumCeiling(kind, otp ?? false)).includes(verification_ceiling),
  describe: ({ kind, otp }) => `above_the_kinds_maximum_${maximumCeiling(kind, otp ?? false)}`,
  schema: {
    anyOf: SOURCE_KINDS.flatMap((kind) => {
      const plain = {
        properties: { kind: { const: kind }, verification_ceiling: { enum: levelsUpTo(maximumCeiling(kind, false)) } },
      };
      if (maximumCeiling(kind, true) === maximumCeiling(kind, false)) return [plain];
      const otp = {
        required: ["otp"],
        properties: {
          kind: { const: kind },
          otp: { const: true },
          verification_ceiling: { enum: levelsUpTo(maximumCeiling(kind, true)) },
        },
      };
      return [plain, otp];
    }),
  },
};

export const SourceInputSchema = withRules(
  z.strictObject({
    name: NameSchema,
    kind: z.enum(SOURCE_KINDS),
    verification_ceiling: LevelSchema.exclude(["no_customer"]).optional(),
    otp: z.boolean().optional(),
    act: z
      .strictObject({
        operations: z.array(SlugSchema).max(100),
        object_types: z.array(SlugSchema).max(100),
      })
      .optional(),
    mapping: clientKeyed(
      z.record(z.string(), z.unknown()).openapi({ propertyNames: { not: { const: "__proto__" } } } as Record<never, never>),
    ).optional(),
  }),
  [ceilingWithinKind],
).openapi("SourceInput", {
  description: `The highest \`verification_ceiling\` by kind: ${SOURCE_KINDS.map((kind) => `\`${kind}\` ${KIND_CEILING[kind]}`).join(", ")}; \`otp: true\` raises a lower one to V3. Absent, the source gets its kind's highest.`,
});

export const SourceSchema = z
  .object({
    source_id: z.string(),
    space_id: z.string(),
    name: z.string(),
    kind: z.enum(SOURCE_KINDS),
    verification_ceiling: LevelSchema,
    otp: z.boolean(),
    act: z.object({ operations: z.array(z.string()), object_types: z.array(z.string()) }),
    mapping: z.record(z.string(), z.unknown()).nullable(),
    created_at: TimestampSchema,
  })
  .openapi("Source");

export const KeyInputSchema = z
  .strictObject({
    scopes: setOf(ScopeSchema, 1, 7),
    mode: z.enum(["live", "test"]).default("live"),
    expires_at: TimestampInputSchema.optional().openapi({ description: "In the future; a time already past is `422`." }),
  })
  .openapi("KeyInput");

export const KeySchema = z
  .object({
    key_id: z.string(),
    source_id: z.string(),
    space_id: z.string(),
    scopes: z.array(ScopeSchema),
    mode: z.enum(["live", "test"]),
    status: z.enum(["active", "revoked", "expired"]).openapi({
      description: "`expired`: past `expires_at` and not revoked; derived when the key is read, never stored.",
    }),
    created_at: TimestampSchema,
    rotated_at: TimestampSchema.nullable(),
    revoked_at: TimestampSchema.nullable(),
    expires_at: TimestampSchema.nullable(),
    key: z.string().optional().openapi({ description: "The whole key: shown once, at creation or rotation." }),
  })
  .openapi("Key");

export function pageOf<T extends z.ZodType>(item: T, name: string) {
  return z.object({ data: z.array(item), next_cursor: z.string().nullable() }).openapi(name);
}

export const IdParamSchema = z.object({ id: z.string().min(1).max(128) });

export type PersonInput = z.infer<typeof PersonInputSchema>;
export type Person = z.infer<typeof PersonSchema>;
export type PersonUpdate = z.infer<typeof PersonUpdateSchema>;
export type TenantInput = z.infer<typeof TenantInputSchema>;
export type TenantCreated = z.infer<typeof TenantCreatedSchema>;
export type Project = z.infer<typeof ProjectSchema>;
export type Space = z.infer<typeof SpaceSchema>;
export type SourceInput = z.infer<typeof SourceInputSchema>;
export type Source = z.infer<typeof SourceSchema>;
export type KeyInput = z.infer<typeof KeyInputSchema>;
export type Key = z.infer<typeof KeySchema>;
