import { and, asc, eq, gte, lt, sql } from "drizzle-orm";
import { hashPassword, verifyPassword } from "../auth/password";
import type { PersonPrincipal } from "../auth/person-token";
import type { Role } from "../contract/common";
import type { Person, PersonInput, PersonUpdate } from "../contract/control";
import { Problem } from "../http/problem";
import { uuidv7 } from "../ids";
import { type ControlDb, iso } from "./db";
import { listPage } from "./paging";
import { loginFailures, people, sources } from "./schema";
import { cutPerson } from "./token-cuts";

/** An e-mail as people are found by it. */
export const normalizedEmail = (email: string) => email.trim().toLowerCase();
export type PersonRow = typeof people.$inferSelect;

const FAILURES_ALLOWED = 5;
const FAILURE_WINDOW_MS = 15 * 60 * 1000;

export function personView(row: PersonRow): Person {
  return {
    person_id: row.personId,
    tenant_id: row.tenantId,
    email: row.email,
    name: row.name,
    roles: row.roles as Role[],
    vendor_sources: row.vendorSources,
    created_at: iso(row.createdAt),
  };
}

/** Inserts a person whose password is already hashed; an e-mail is one person across tenants. */
export function insertPerson(
  db: ControlDb,
  tenantId: string,
  input: Omit<PersonInput, "password">,
  passwordHash: string,
  now: number,
): PersonRow {
  const email = normalizedEmail(input.email);
  if (db.select({ id: people.personId }).from(people).where(eq(people.email, email)).get()) {
    throw new Problem("conflict", "a person with this e-mail exists");
  }
  requireTenantSources(db, tenantId, input.vendor_sources ?? [], "vendor_sources");
  const row: PersonRow = {
    personId: uuidv7(now),
    tenantId,
    email,
    name: input.name ?? null,
    roles: input.roles,
    vendorSources: input.vendor_sources ?? [],
    passwordHash,
    tokenGeneration: 0,
    createdAt: now,
  };
  db.insert(people).values(row).run();
  return row;
}

export function getPerson(db: ControlDb, personId: string): PersonRow | undefined {
  return db.select().from(people).where(eq(people.personId, personId)).get();
}

/** The person an e-mail names, if any (who a refused login is recorded under). */
export function personByEmail(db: ControlDb, email: string): PersonRow | undefined {
  return db
    .select()
    .from(people)
    .where(eq(people.email, normalizedEmail(email)))
    .get();
}

/** The tenant's person, or `404`. */
function requirePerson(db: ControlDb, tenantId: string, personId: string): PersonRow {
  const row = getPerson(db, personId);
  if (!row || row.tenantId !== tenantId) throw new Problem("not_found", "no such person");
  return row;
}

/**
 * A vendor binding names sources of the person's own tenant only; another tenant's source and an
 * unknown id are the same `422`, so the answer never tells whether a source exists elsewhere.
 */
function requireTenantSources(db: ControlDb, tenantId: string, sourceIds: readonly string[], field: string): void {
  sourceIds.forEach((sourceId, at) => {
    const row = db.select({ tenantId: sources.tenantId }).from(sources).where(eq(sources.sourceId, sourceId)).get();
    if (row?.tenantId !== tenantId) throw new Problem("invalid_input", `${field}.${at}: not_a_source_of_this_tenant`);
  });
}

/** The tenant keeps one `admin` at least: no change may remove the last. */
function keepsAnAdmin(db: ControlDb, person: PersonRow, rolesAfter: readonly string[] | null): void {
  if (!person.roles.includes("admin") || rolesAfter?.includes("admin")) return;
  const admins = db
    .select({ count: sql<number>`count(*)` })
    .from(people)
    .where(
      and(eq(people.tenantId, person.tenantId), sql`exists (select 1 from json_each(${people.roles}) where value = 'admin')`),
    )
    .get();
  if ((admins?.count ?? 0) <= 1) throw new Problem("conflict", "the tenant's last admin cannot lose the role");
}

/**
 * Changes a person's name, roles or vendor bindings. A change of roles or bindings raises the
 * person's token generation and cuts every token issued before it (the caller pushes the cut to
 * the tenant's spaces): a token's claims are never more than the person holds now.
 */
export function updatePerson(db: ControlDb, tenantId: string, personId: string, input: PersonUpdate, now: number): PersonRow {
  const person = requirePerson(db, tenantId, personId);
  if (input.vendor_sources) requireTenantSources(db, tenantId, input.vendor_sources, "vendor_sources");
  if (input.roles) keepsAnAdmin(db, person, input.roles);
  const roles = input.roles ?? person.roles;
  const vendorSources = input.vendor_sources ?? person.vendorSources;
  const changesAccess = !sameSet(roles, person.roles) || !sameSet(vendorSources, person.vendorSources);
  const row: PersonRow = {
    ...person,
    name: input.name === undefined ? person.name : input.name,
    roles,
    vendorSources,
    tokenGeneration: person.tokenGeneration + (changesAccess ? 1 : 0),
  };
  db.update(people)
    .set({ name: row.name, roles: row.roles, vendorSources: row.vendorSources, tokenGeneration: row.tokenGeneration })
    .where(eq(people.personId, personId))
    .run();
  if (changesAccess) cutPerson(db, row, row.tokenGeneration, now);
  return row;
}

/** Removes a person; every token they hold is cut (the caller pushes the cut to the tenant's spaces). */
export function removePerson(db: ControlDb, tenantId: string, personId: string, now: number): void {
  const person = requirePerson(db, tenantId, personId);
  keepsAnAdmin(db, person, null);
  db.delete(people).where(eq(people.personId, personId)).run();
  cutPerson(db, person, person.tokenGeneration + 1, now);
}

/** Whether two lists hold the same values, however often each is named. */
function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((value) => right.has(value));
}

export function listPeople(db: ControlDb, tenantId: string, after: string | null, limit: number) {
  const list = { table: people, id: people.personId, idOf: (row: PersonRow) => row.personId, view: personView };
  return listPage(db, list, eq(people.tenantId, tenantId), after, limit);
}

let unknownHash: Promise<string> | undefined;
function unknownPersonHash(): Promise<string> {
  unknownHash ??= hashPassword(crypto.randomUUID());
  return unknownHash;
}

/**
 * Checks an e-mail and password. Five failures for one e-mail within 15 minutes lock it until
 * the oldest of them ages out (`429` with `Retry-After`); an unknown e-mail fails like a wrong
 * password, so the answer never tells whether a person exists. Failures are counted under
 * `failureKey`, a keyed digest of the e-mail: what people mistype is not kept.
 */
export async function login(
  db: ControlDb,
  login: { email: string; password: string; failureKey: string },
  now: number,
): Promise<{ person: PersonPrincipal; generation: number }> {
  const { password, failureKey } = login;
  const normalized = normalizedEmail(login.email);
  db.delete(loginFailures)
    .where(lt(loginFailures.at, now - FAILURE_WINDOW_MS))
    .run();
  const recent = db
    .select({ at: loginFailures.at })
    .from(loginFailures)
    .where(and(eq(loginFailures.emailDigest, failureKey), gte(loginFailures.at, now - FAILURE_WINDOW_MS)))
    .orderBy(asc(loginFailures.at))
    .all();
  if (recent.length >= FAILURES_ALLOWED) {
    const retryAfter = Math.ceil(((recent[0]?.at ?? now) + FAILURE_WINDOW_MS - now) / 1000);
    throw new Problem("rate_limited", "too many failed logins; wait before trying again", {
      "Retry-After": String(Math.max(1, retryAfter)),
    });
  }
  const person = db.select().from(people).where(eq(people.email, normalized)).get();
  // An unknown e-mail costs the same hashing as a known one.
  const valid = await verifyPassword(password, person?.passwordHash ?? (await unknownPersonHash()));
  if (!person || !valid) {
    db.insert(loginFailures).values({ emailDigest: failureKey, at: now }).run();
    throw new Problem("unauthenticated", "e-mail or password is wrong");
  }
  db.delete(loginFailures).where(eq(loginFailures.emailDigest, failureKey)).run();
  return {
    person: {
      kind: "person",
      personId: person.personId,
      tenantId: person.tenantId,
      roles: person.roles as Role[],
      vendorSources: person.vendorSources,
    },
    generation: person.tokenGeneration,
  };
}
