import { z } from "@hono/zod-openapi";
import { jwtVerify, SignJWT } from "jose";
import { RoleSchema } from "../contract/common";
import type { Principal } from "./policy";

/** Person tokens live 15 minutes (SPEC limits). */
export const PERSON_TOKEN_TTL_S = 15 * 60;
const ISSUER = "customer-memory-service/control";

const ClaimsSchema = z.object({
  sub: z.string(),
  tid: z.string(),
  roles: z.array(RoleSchema),
  vendor_sources: z.array(z.string()),
});

export type PersonPrincipal = Extract<Principal, { kind: "person" }>;

export async function signPersonToken(
  secret: Uint8Array,
  person: PersonPrincipal,
  nowMs: number,
): Promise<{ token: string; expiresAt: number }> {
  const iat = Math.floor(nowMs / 1000);
  const token = await new SignJWT({ tid: person.tenantId, roles: [...person.roles], vendor_sources: [...person.vendorSources] })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(person.personId)
    .setIssuer(ISSUER)
    .setIssuedAt(iat)
    .setExpirationTime(iat + PERSON_TOKEN_TTL_S)
    .sign(secret);
  return { token, expiresAt: (iat + PERSON_TOKEN_TTL_S) * 1000 };
}

/** The person behind a valid, unexpired token; null for anything else. */
export async function verifyPersonToken(secret: Uint8Array, token: string, nowMs: number): Promise<PersonPrincipal | null> {
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
    };
  } catch {
    return null;
  }
}
