import { z } from "@hono/zod-openapi";
import { jwtVerify, SignJWT } from "jose";
import { RoleSchema } from "../contract/common";
import type { Principal } from "./policy";

/** Person tokens live 15 minutes (SPEC limits). */
export const PERSON_TOKEN_TTL_S = 15 * 60;
const ISSUER = "customer-memory-service/control";

const ClaimsSchema = z.object({
  sub: z.string(),
  jti: z.string(),
  tid: z.string(),
  gen: z.number().int().nonnegative(),
  exp: z.number(),
  roles: z.array(RoleSchema),
  vendor_sources: z.array(z.string()),
});

export type PersonPrincipal = Extract<Principal, { kind: "person" }>;

/**
 * Which token a person came with, so it can be cut before it expires (docs/api/control.md): its
 * id (`jti`), the person's token generation when it was issued (`gen`), and its expiry.
 */
export interface TokenRef {
  id: string;
  generation: number;
  expiresAt: number;
}

/** The one `401` for a person token: never which of these it was. */
export const TOKEN_REFUSED = "the credential is malformed, unknown, expired or ended";

/** A person as a verified token presents them. */
export type PersonActor = PersonPrincipal & { token: TokenRef };

export async function signPersonToken(
  secret: Uint8Array,
  person: PersonPrincipal,
  generation: number,
  nowMs: number,
): Promise<{ token: string; expiresAt: number }> {
  const iat = Math.floor(nowMs / 1000);
  const claims = { tid: person.tenantId, gen: generation, roles: [...person.roles], vendor_sources: [...person.vendorSources] };
  const token = await new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(person.personId)
    .setJti(crypto.randomUUID())
    .setIssuer(ISSUER)
    .setIssuedAt(iat)
    .setExpirationTime(iat + PERSON_TOKEN_TTL_S)
    .sign(secret);
  return { token, expiresAt: (iat + PERSON_TOKEN_TTL_S) * 1000 };
}

/** The person behind a valid, unexpired token; null for anything else. Whether it was cut is the objects' check. */
export async function verifyPersonToken(secret: Uint8Array, token: string, nowMs: number): Promise<PersonActor | null> {
  try {
    const { payload } = await jwtVerify(token, secret, {
      algorithms: ["HS256"],
      issuer: ISSUER,
      currentDate: new Date(nowMs),
    });
    const claims = ClaimsSchema.safeParse(payload);
    if (!claims.success) return null;
    return {
      kind: "person",
      personId: claims.data.sub,
      tenantId: claims.data.tid,
      roles: claims.data.roles,
      vendorSources: claims.data.vendor_sources,
      token: { id: claims.data.jti, generation: claims.data.gen, expiresAt: claims.data.exp * 1000 },
    };
  } catch {
    return null;
  }
}
