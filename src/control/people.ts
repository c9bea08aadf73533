import { and, asc, eq, gte, lt } from "drizzle-orm";
import { hashPassword, verifyPassword } from "../auth/password";
import type { PersonPrincipal } from "../auth/person-token";
import type { Role } from "../contract/common";
import type { Person, PersonInput } from "../contract/control";
import { Problem } from "../http/problem";
import { uuidv7 } from "../ids";
import { type ControlDb, iso } from "./db";
import { listPage } from "./paging";
import { loginFailures, people } from "./schema";

type PersonRow = typeof people.$inferSelect;

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
  const email = input.email.trim().toLowerCase();
  if (db.select({ id: people.personId }).from(people).where(eq(people.email, email)).get()) {
    throw new Problem("conflict", "a person with this e-mail exists");
  }
  const row: PersonRow = {
    personId: uuidv7(now),
    tenantId,
    email,
    name: input.name ?? null,
    roles: input.roles,
    vendorSources: input.vendor_sources ?? [],
    passwordHash,
    createdAt: now,
  };
  db.insert(people).values(row).run();
  return row;
}

export function getPerson(db: ControlDb, personId: string): PersonRow | undefined {
  return db.select().from(people).where(eq(people.personId, personId)).get();
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
 * password, so the answer never tells whether a person exists.
 */
export async function login(db: ControlDb, email: string, password: string, now: number): Promise<PersonPrincipal> {
  const normalized = email.trim().toLowerCase();
  db.delete(loginFailures)
    .where(lt(loginFailures.at, now - FAILURE_WINDOW_MS))
    .run();
  const recent = db
    .select({ at: loginFailures.at })
    .from(loginFailures)
    .where(and(eq(loginFailures.email, normalized), gte(loginFailures.at, now - FAILURE_WINDOW_MS)))
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
    db.insert(loginFailures).values({ email: normalized, at: now }).run();
    throw new Problem("unauthenticated", "e-mail or password is wrong");
  }
  db.delete(loginFailures).where(eq(loginFailures.email, normalized)).run();
  return {
    kind: "person",
    personId: person.personId,
    tenantId: person.tenantId,
    roles: person.roles as Role[],
    vendorSources: person.vendorSources,
  };
}
