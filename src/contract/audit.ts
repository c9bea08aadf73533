import { z } from "@hono/zod-openapi";
import { PageQuerySchema, TimestampInputSchema, TimestampSchema, text } from "./common";

/** Governance actions of a space's log (data API). */
export const SPACE_AUDIT_ACTIONS = [
  "profile.read",
  "profile.lookup",
  "context.read",
  "timeline.read",
  "history.read",
  "search.read",
  "suggestion.accept",
  "suggestion.dismiss",
  "merge.undo",
  "export.create",
  "export.read",
  "export.download",
  "forget",
  "receipt.read",
  "audit.read",
] as const;

/** Governance actions of the control plane's log (control API). */
export const CONTROL_AUDIT_ACTIONS = [
  "auth.login",
  "auth.login_refused",
  "auth.logout",
  "person.create",
  "person.update",
  "person.remove",
  "project.create",
  "space.create",
  "source.create",
  "key.create",
  "key.rotate",
  "key.revoke",
  "config.update",
  "audit.read",
] as const;

export type SpaceAuditAction = (typeof SPACE_AUDIT_ACTIONS)[number];
export type ControlAuditAction = (typeof CONTROL_AUDIT_ACTIONS)[number];
export type AuditAction = SpaceAuditAction | ControlAuditAction;

export const AUDIT_TARGET_TYPES = [
  "profile",
  "suggestion",
  "merge",
  "receipt",
  "export",
  "person",
  "project",
  "space",
  "source",
  "key",
  "config",
] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

export const AuditTargetSchema = z
  .object({ type: z.enum(AUDIT_TARGET_TYPES), id: z.string() })
  .openapi("AuditTarget", { description: "A record the action named or touched, by id (never a handle or a text)." });

/** An entry, its query and its page, for one log: the space's (data API) or the control plane's. */
function auditSchemas<A extends readonly [string, ...string[]]>(actions: A, name: string) {
  const entry = z
    .object({
      audit_id: z.string(),
      at: TimestampSchema,
      actor: z.object({
        kind: z.enum(["person", "key", "link"]).openapi({
          description: "`person`: a person token; `key`: a source key; `link`: a signed download link (`id` is the export's).",
        }),
        id: z.string(),
      }),
      action: z.enum(actions),
      targets: z.array(AuditTargetSchema),
      outcome: z.string().openapi({
        description: "`ok`, or the problem code the request was refused with (`forbidden`, `not_found`, ...).",
      }),
      request_id: z.string().nullable().openapi({ description: "The `Request-Id` of the request that did it." }),
    })
    .openapi(`${name}Entry`, { description: "One governance action: who, what, when. Ids only, never personal data." });
  const query = z.strictObject({
    from: TimestampInputSchema.optional().openapi({ description: "Entries at or after this instant." }),
    to: TimestampInputSchema.optional().openapi({ description: "Entries before this instant." }),
    actor: text(1, 128).optional().openapi({ description: "A person id or a key id." }),
    action: z.enum(actions).optional(),
    cursor: PageQuerySchema.shape.cursor,
    limit: PageQuerySchema.shape.limit,
  });
  const page = z
    .object({ data: z.array(entry), next_cursor: z.string().nullable() })
    .openapi(`${name}Page`, { description: "Oldest first." });
  return { entry, query, page };
}

export const SpaceAudit = auditSchemas(SPACE_AUDIT_ACTIONS, "SpaceAudit");
export const ControlAudit = auditSchemas(CONTROL_AUDIT_ACTIONS, "ControlAudit");

export type AuditTarget = z.infer<typeof AuditTargetSchema>;
export type AuditEntry = z.infer<typeof SpaceAudit.entry> | z.infer<typeof ControlAudit.entry>;
export type SpaceAuditQuery = z.infer<typeof SpaceAudit.query>;
export type ControlAuditQuery = z.infer<typeof ControlAudit.query>;
export type AuditQuery = SpaceAuditQuery | ControlAuditQuery;
export type AuditPage = { data: AuditEntry[]; next_cursor: string | null };
export type SpaceAuditPage = z.infer<typeof SpaceAudit.page>;
export type ControlAuditPage = z.infer<typeof ControlAudit.page>;
