import type { PresentedCredential } from "../auth/credential";
import type { AuditAction, AuditEntry, AuditQuery, AuditTarget } from "../contract/audit";
import type { Outcome } from "../http/problem";
import { uuidv7 } from "../ids";

/**
 * The audit log (DESIGN 3.12), one table `audit_log` in each object: the space's governance
 * actions in the space's database, the control plane's in the ControlObject's (with the tenant).
 * Append-only: nothing but `appendAudit` writes it, and no route changes or deletes a row. A row
 * holds ids only, never a handle, a text or an e-mail, so forget leaves it as it is.
 */
export interface AuditRecord {
  actor: AuditEntry["actor"];
  action: AuditAction;
  targets: AuditTarget[];
  /** `ok`, or the problem code the request was refused with. */
  outcome: string;
  requestId: string | null;
}

/**
 * The service's own ids are UUIDs, and key ids 12 base32 characters; a path segment that is
 * anything else (anyone can type anything there, an e-mail too) is left out.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const KEY_ID = /^[a-z2-7]{12}$/;

/** Targets as a row keeps them: ids of the service's own syntax only, each once. */
export function auditTargets(targets: readonly (AuditTarget | null | undefined)[]): AuditTarget[] {
  const seen = new Set<string>();
  const out: AuditTarget[] = [];
  for (const target of targets) {
    if (!target || !(UUID.test(target.id) || (target.type === "key" && KEY_ID.test(target.id)))) continue;
    const key = `${target.type}\n${target.id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(target);
  }
  return out;
}

export type AuditActor = AuditEntry["actor"];

/** Who a credential names: its key id, or its person id (as presented: a refusal is recorded under the id it claimed). */
export function actorOf(credential: PresentedCredential): AuditActor {
  return credential.kind === "key" ? { kind: "key", id: credential.keyId } : { kind: "person", id: credential.person.personId };
}

/** A governance request as the log records it once answered: the targets it named, and those its answer names. */
export interface AuditedRequest<T> {
  actor: AuditActor;
  action: AuditAction;
  requestId: string | null;
  targets?: readonly AuditTarget[];
  targetsOf?: (value: T) => readonly (AuditTarget | null)[];
  /** Recorded even when refused with `401`: the actor is known whatever the credential (a link's export, a login's person). */
  named?: boolean;
}

/**
 * Records an answered request: `ok` or the problem code. A credential that is no credential
 * (`401`) names nobody for sure and is not recorded, unless the request is `named`.
 */
export function recordOutcome<T>(
  sql: SqlStorage,
  request: AuditedRequest<T>,
  outcome: Outcome<T>,
  now: number,
  tenantId?: string,
) {
  // A link's id is the export id of its path, which anyone can type: only an id of ours is kept.
  if (request.actor.kind === "link" && !UUID.test(request.actor.id)) return;
  if (!outcome.ok && outcome.problem.code === "unauthenticated" && !request.named) return;
  const answered = outcome.ok && request.targetsOf ? request.targetsOf(outcome.value) : [];
  const record = {
    actor: request.actor,
    action: request.action,
    targets: auditTargets([...(request.targets ?? []), ...answered]),
    outcome: outcome.ok ? "ok" : outcome.problem.code,
    requestId: request.requestId,
  };
  appendAudit(sql, record, now, tenantId);
}

/** Appends one row; `tenantId` only in the ControlObject's log. */
export function appendAudit(sql: SqlStorage, record: AuditRecord, now: number, tenantId?: string): void {
  const columns = tenantId === undefined ? "" : ", tenant_id";
  const values = tenantId === undefined ? "" : ", ?";
  sql.exec(
    `INSERT INTO audit_log (audit_id, at, actor_kind, actor_id, action, targets, outcome, request_id${columns})
     VALUES (?, ?, ?, ?, ?, ?, ?, ?${values})`,
    uuidv7(now),
    now,
    record.actor.kind,
    record.actor.id,
    record.action,
    JSON.stringify(auditTargets(record.targets)),
    record.outcome,
    record.requestId,
    ...(tenantId === undefined ? [] : [tenantId]),
  );
}

interface AuditRow {
  seq: number;
  audit_id: string;
  at: number;
  actor_kind: string;
  actor_id: string;
  action: string;
  targets: string;
  outcome: string;
  request_id: string | null;
  [column: string]: SqlStorageValue;
}

/** Where a page starts: after the row at `(at, seq)`; a cursor is `<at>:<seq>` (sealed by the object). */
function positionOf(cursor: string | undefined): { at: number; seq: number } | null {
  if (cursor === undefined) return null;
  const [at, seq] = cursor.split(":").map(Number);
  return at === undefined || seq === undefined ? null : { at, seq };
}

/**
 * A page of the log, oldest first by `(at, seq)`, within `[from, to)` and for one actor or
 * action when asked; `tenantId` scopes the ControlObject's log to one tenant.
 */
export function auditPage(
  sql: SqlStorage,
  query: AuditQuery,
  tenantId?: string,
): { data: AuditEntry[]; next_cursor: string | null } {
  const where: string[] = [];
  const bound: SqlStorageValue[] = [];
  const add = (clause: string, ...values: SqlStorageValue[]) => {
    where.push(clause);
    bound.push(...values);
  };
  if (tenantId !== undefined) add("tenant_id = ?", tenantId);
  if (query.from !== undefined) add("at >= ?", Date.parse(query.from));
  if (query.to !== undefined) add("at < ?", Date.parse(query.to));
  if (query.actor !== undefined) add("actor_id = ?", query.actor);
  if (query.action !== undefined) add("action = ?", query.action);
  const after = positionOf(query.cursor);
  if (after) add("(at > ? OR (at = ? AND seq > ?))", after.at, after.at, after.seq);
  const rows = sql
    .exec<AuditRow>(
      `SELECT * FROM audit_log ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY at, seq LIMIT ?`,
      ...bound,
      query.limit + 1,
    )
    .toArray();
  const data = rows.slice(0, query.limit);
  const last = data.at(-1);
  return {
    data: data.map(entryOf),
    next_cursor: rows.length > query.limit && last ? `${last.at}:${last.seq}` : null,
  };
}

function entryOf(row: AuditRow): AuditEntry {
  return {
    audit_id: row.audit_id,
    at: new Date(row.at).toISOString(),
    actor: { kind: row.actor_kind as AuditEntry["actor"]["kind"], id: row.actor_id },
    action: row.action as AuditEntry["action"],
    targets: JSON.parse(row.targets) as AuditTarget[],
    outcome: row.outcome,
    request_id: row.request_id,
  } as AuditEntry;
}
