import { z } from "@hono/zod-openapi";

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

/** ISO 8601 in UTC (`Z`), as SPEC requires for every timestamp. */
export const TimestampSchema = z.iso.datetime().openapi({ example: "2026-11-22T10:00:00Z" });

/** A caller-chosen id: conversation, task, object. */
export const ExternalIdSchema = z.string().min(1).max(512);

/** A lower-case machine name: handle types, operations, object types, canonical types. */
export const SlugSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z][a-z0-9_.-]*$/);

export const UuidSchema = z.uuid();

export const IdentifierSchema = z
  .strictObject({
    type: SlugSchema.openapi({ example: "phone_e164" }),
    value: z.string().min(1).max(1024),
    scope: z.string().max(256).optional(),
  })
  .openapi("Identifier");

export const ScalarSchema = z.union([z.string().max(4096), z.number(), z.boolean(), z.null()]);
export const AttributesSchema = z.record(z.string().min(1).max(128), ScalarSchema);

/** Names of spaces and regions: they appear in host names and source keys. */
export const NameSlugSchema = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/);

export const PageQuerySchema = z.object({
  cursor: z.string().min(1).max(512).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
