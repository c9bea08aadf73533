import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { idempotencyTable } from "../idempotency-store";

export { controlAuditLog } from "../audit/schema";

/** The control plane's tables. It never holds customer content. See docs/storage.md. */
export const tenants = sqliteTable("tenants", {
  tenantId: text("tenant_id").primaryKey(),
  name: text("name").notNull(),
  createdAt: integer("created_at").notNull(),
});

export const people = sqliteTable(
  "people",
  {
    personId: text("person_id").primaryKey(),
    tenantId: text("tenant_id").notNull(),
    email: text("email").notNull(),
    name: text("name"),
    roles: text("roles", { mode: "json" }).notNull().$type<string[]>(),
    vendorSources: text("vendor_sources", { mode: "json" }).notNull().$type<string[]>(),
    passwordHash: text("password_hash").notNull(),
    /** Raised when the person's roles or bindings change: tokens of an older generation are cut. */
    tokenGeneration: integer("token_generation").notNull().default(0),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [uniqueIndex("people_email").on(table.email), index("people_tenant").on(table.tenantId, table.personId)],
);

/**
 * Person tokens ended before their expiry (src/auth/token-cuts.ts): a logout's token, or a
 * person's tokens below a generation. Kept until every token a cut reaches has expired; pushed to
 * the tenant's spaces with their replica. Owned by `token-cuts.ts`.
 */
export const tokenCuts = sqliteTable(
  "token_cuts",
  {
    id: integer("id").primaryKey(),
    tenantId: text("tenant_id").notNull(),
    personId: text("person_id").notNull(),
    tokenId: text("token_id"),
    generation: integer("generation").notNull(),
    until: integer("until").notNull(),
  },
  (table) => [index("token_cuts_tenant").on(table.tenantId, table.until), index("token_cuts_token").on(table.tokenId)],
);

export const loginFailures = sqliteTable("login_failures", {
  id: integer("id").primaryKey(),
  emailDigest: text("email_digest").notNull(),
  at: integer("at").notNull(),
});

export const projects = sqliteTable(
  "projects",
  {
    projectId: text("project_id").primaryKey(),
    tenantId: text("tenant_id").notNull(),
    name: text("name").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [index("projects_tenant").on(table.tenantId, table.projectId)],
);

export const spaces = sqliteTable(
  "spaces",
  {
    spaceId: text("space_id").primaryKey(),
    tenantId: text("tenant_id").notNull(),
    projectId: text("project_id").notNull(),
    name: text("name").notNull(),
    region: text("region").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [
    uniqueIndex("spaces_name").on(table.name),
    index("spaces_project").on(table.projectId, table.spaceId),
    // A cut of a person's tokens is pushed to every space of the tenant.
    index("spaces_tenant").on(table.tenantId),
  ],
);

export const sources = sqliteTable(
  "sources",
  {
    sourceId: text("source_id").primaryKey(),
    tenantId: text("tenant_id").notNull(),
    spaceId: text("space_id").notNull(),
    name: text("name").notNull(),
    kind: text("kind").notNull(),
    verificationCeiling: text("verification_ceiling").notNull(),
    otp: integer("otp", { mode: "boolean" }).notNull(),
    actOperations: text("act_operations", { mode: "json" }).notNull().$type<string[]>(),
    actObjectTypes: text("act_object_types", { mode: "json" }).notNull().$type<string[]>(),
    mapping: text("mapping", { mode: "json" }).$type<Record<string, unknown>>(),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [index("sources_space").on(table.spaceId, table.sourceId)],
);

export const keys = sqliteTable(
  "keys",
  {
    keyId: text("key_id").primaryKey(),
    tenantId: text("tenant_id").notNull(),
    sourceId: text("source_id").notNull(),
    spaceId: text("space_id").notNull(),
    scopes: text("scopes", { mode: "json" }).notNull().$type<string[]>(),
    mode: text("mode").notNull(),
    digest: text("digest").notNull(),
    status: text("status").notNull(),
    createdAt: integer("created_at").notNull(),
    rotatedAt: integer("rotated_at"),
    revokedAt: integer("revoked_at"),
    expiresAt: integer("expires_at"),
  },
  (table) => [index("keys_space").on(table.spaceId), index("keys_source").on(table.sourceId, table.createdAt)],
);

export const configs = sqliteTable(
  "configs",
  {
    spaceId: text("space_id").notNull(),
    version: integer("version").notNull(),
    values: text("values", { mode: "json" }).notNull().$type<Record<string, unknown>>(),
    updatedAt: integer("updated_at").notNull(),
    updatedBy: text("updated_by").notNull(),
  },
  (table) => [primaryKey({ columns: [table.spaceId, table.version] })],
);

/** Each tenant's quotas (`PUT /v1/quotas`), one per metric. Owned by `quotas.ts`. */
export const quotas = sqliteTable(
  "quotas",
  {
    tenantId: text("tenant_id").notNull(),
    metric: text("metric").notNull(),
    limit: integer("limit").notNull(),
    period: text("period").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.tenantId, table.metric] })],
);

/**
 * Spaces owed a push of their records: marked in the transaction of the change, dropped when a
 * push that carries it lands (`version` tells a later change apart). Owned by `replication.ts`.
 */
export const owedPushes = sqliteTable("owed_pushes", {
  spaceId: text("space_id").primaryKey(),
  version: integer("version").notNull(),
});

/** `Idempotency-Key` answers, kept 24 hours with the hash of the request they answered. */
export const idempotencyRecords = idempotencyTable("idempotency_created");

/** Keys the object made for itself (cursor signing: src/auth/signing-key.ts), random, never shown. */
export const signingKeys = sqliteTable("signing_keys", {
  name: text("name").primaryKey(),
  secret: text("secret").notNull(),
});

/** Secrets generated for development only (DESIGN 3.1); production reads them from the environment. */
export const generatedSecrets = sqliteTable("generated_secrets", {
  name: text("name").primaryKey(),
  value: text("value").notNull(),
});
