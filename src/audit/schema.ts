import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** The columns both logs share (`log.ts` owns both tables). */
const entry = () => ({
  /** Append order: with `at`, the log's order and its cursor. */
  seq: integer("seq").primaryKey(),
  auditId: text("audit_id").notNull(),
  at: integer("at").notNull(),
  actorKind: text("actor_kind").notNull(),
  actorId: text("actor_id").notNull(),
  action: text("action").notNull(),
  /** JSON `[{type, id}]`: ids only. */
  targets: text("targets").notNull(),
  outcome: text("outcome").notNull(),
  requestId: text("request_id"),
});

/** A space's audit log (`src/audit/log.ts`), in the space's database. */
export const auditLog = sqliteTable("audit_log", entry(), (table) => [
  uniqueIndex("audit_log_id").on(table.auditId),
  index("audit_log_at").on(table.at, table.seq),
]);

/** The control plane's audit log (`src/audit/log.ts`), in the ControlObject's database, per tenant. */
export const controlAuditLog = sqliteTable("audit_log", { ...entry(), tenantId: text("tenant_id").notNull() }, (table) => [
  uniqueIndex("audit_log_id").on(table.auditId),
  index("audit_log_tenant_at").on(table.tenantId, table.at, table.seq),
]);
