import { and, eq, gt, lte } from "drizzle-orm";
import { PERSON_TOKEN_TTL_S, type PersonActor, TOKEN_REFUSED } from "../auth/person-token";
import type { TokenCut } from "../auth/token-cuts";
import { Problem } from "../http/problem";
import type { ControlDb } from "./db";
import { people, tokenCuts } from "./schema";

/** Logout: the one token, until it would have expired. */
export function cutToken(db: ControlDb, actor: PersonActor): void {
  db.insert(tokenCuts)
    .values({
      tenantId: actor.tenantId,
      personId: actor.personId,
      tokenId: actor.token.id,
      generation: actor.token.generation,
      until: actor.token.expiresAt,
    })
    .run();
}

/** Every token of a person below `generation` (removed, or roles changed): all expire within a token's life. */
export function cutPerson(db: ControlDb, person: { tenantId: string; personId: string }, generation: number, now: number): void {
  db.insert(tokenCuts)
    .values({ ...person, tokenId: null, generation, until: now + PERSON_TOKEN_TTL_S * 1000 })
    .run();
}

/** The tenant's cuts that can still reach a token; cuts past that are dropped. */
export function tenantCuts(db: ControlDb, tenantId: string, now: number): TokenCut[] {
  db.delete(tokenCuts).where(lte(tokenCuts.until, now)).run();
  return db
    .select({
      personId: tokenCuts.personId,
      tokenId: tokenCuts.tokenId,
      generation: tokenCuts.generation,
      until: tokenCuts.until,
    })
    .from(tokenCuts)
    .where(and(eq(tokenCuts.tenantId, tenantId), gt(tokenCuts.until, now)))
    .all();
}

/**
 * A control request's token against the control tables: the person still exists in the token's
 * tenant at the token's generation, and the token was not logged out. Any failure is the same `401`.
 */
export function requireLiveToken(db: ControlDb, actor: PersonActor): typeof people.$inferSelect {
  const person = db.select().from(people).where(eq(people.personId, actor.personId)).get();
  const loggedOut = db.select({ id: tokenCuts.id }).from(tokenCuts).where(eq(tokenCuts.tokenId, actor.token.id)).get();
  if (!person || person.tenantId !== actor.tenantId || person.tokenGeneration !== actor.token.generation || loggedOut) {
    throw new Problem("unauthenticated", TOKEN_REFUSED);
  }
  return person;
}
