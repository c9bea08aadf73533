import { z } from "@hono/zod-openapi";
import { LevelSchema, NameSlugSchema, RoleSchema, ScopeSchema, SlugSchema, TimestampSchema } from "./common";

const NameSchema = z.string().trim().min(1).max(200);
const EmailSchema = z.email().max(320);
const PasswordSchema = z.string().min(12).max(256);

export const PersonInputSchema = z
  .strictObject({
    email: EmailSchema,
    password: PasswordSchema,
    name: NameSchema.optional(),
    roles: z.array(RoleSchema).min(1).max(6),
    vendor_sources: z.array(z.uuid()).max(200).optional(),
  })
  .openapi("PersonInput");

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

export const LoginInputSchema = z
  .strictObject({ email: z.string().max(320), password: z.string().max(256) })
  .openapi("LoginInput");

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

export const SourceInputSchema = z
  .strictObject({
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
    mapping: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi("SourceInput");

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
    scopes: z.array(ScopeSchema).min(1).max(7),
    mode: z.enum(["live", "test"]).default("live"),
    expires_at: TimestampSchema.optional(),
  })
  .openapi("KeyInput");

export const KeySchema = z
  .object({
    key_id: z.string(),
    source_id: z.string(),
    space_id: z.string(),
    scopes: z.array(ScopeSchema),
    mode: z.enum(["live", "test"]),
    status: z.enum(["active", "revoked"]),
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

export const IdempotencyHeaderSchema = z.object({
  "idempotency-key": z.string().min(1).max(256).openapi({ description: "Required; kept 24 hours with the hash of the body." }),
});

export type PersonInput = z.infer<typeof PersonInputSchema>;
export type Person = z.infer<typeof PersonSchema>;
export type TenantInput = z.infer<typeof TenantInputSchema>;
export type TenantCreated = z.infer<typeof TenantCreatedSchema>;
export type Project = z.infer<typeof ProjectSchema>;
export type Space = z.infer<typeof SpaceSchema>;
export type SourceInput = z.infer<typeof SourceInputSchema>;
export type Source = z.infer<typeof SourceSchema>;
export type KeyInput = z.infer<typeof KeyInputSchema>;
export type Key = z.infer<typeof KeySchema>;
