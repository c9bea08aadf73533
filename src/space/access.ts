import type { PresentedCredential } from "../auth/credential";
import { TOKEN_REFUSED } from "../auth/person-token";
import { authorize, hasRole, type Principal, type RoutePolicy } from "../auth/policy";
import { Problem } from "../http/problem";
import { visibilityOf } from "./identity/masking";
import type { Viewer } from "./identity/profile-view";
import type { KeyRecord, Replica, SourceRecord } from "./replica";

export interface Caller {
  principal: Principal;
  /** The key's source; null for a person. */
  source: SourceRecord | null;
}

/**
 * Checks a presented credential against the space's replica, then the route's policy.
 * Every failure of the credential itself is the same `401`: the answer never tells an unknown
 * key from a revoked one, nor an expired person token from one that was cut.
 */
export function admit(replica: Replica, credential: PresentedCredential, policy: RoutePolicy, now: number): Caller {
  const caller = identify(replica, credential, now);
  authorize(caller.principal, policy);
  return caller;
}

function identify(replica: Replica, credential: PresentedCredential, now: number): Caller {
  if (credential.kind === "person") {
    if (replica.tokenCuts.reaches(credential.person)) throw new Problem("unauthenticated", TOKEN_REFUSED);
    if (!replica.space || replica.space.tenantId !== credential.person.tenantId) {
      throw new Problem("forbidden", "the person has no access to this space");
    }
    return { principal: credential.person, source: null };
  }
  const key = replica.keys.get(credential.keyId);
  const source = key ? replica.sources.get(key.sourceId) : undefined;
  const space = replica.space;
  if (
    !key ||
    !source ||
    !space ||
    space.name !== credential.space ||
    space.region !== credential.region ||
    !isLive(key, credential, now)
  ) {
    throw new Problem("unauthenticated", "the key is unknown, rotated, revoked or expired");
  }
  return {
    principal: { kind: "key", keyId: key.keyId, sourceId: key.sourceId, scopes: key.scopes, mode: key.mode },
    source,
  };
}

function isLive(key: KeyRecord, credential: Extract<PresentedCredential, { kind: "key" }>, now: number): boolean {
  return (
    key.status === "active" &&
    key.mode === credential.mode &&
    (key.expiresAt === null || key.expiresAt > now) &&
    sameDigest(key.digest, credential.digest)
  );
}

function sameDigest(a: string, b: string): boolean {
  const encoder = new TextEncoder();
  const left = encoder.encode(a);
  const right = encoder.encode(b);
  return left.byteLength === right.byteLength && crypto.subtle.timingSafeEqual(left, right);
}

/** How much of the identifiers a caller sees (DESIGN 3.5), and a `vendor` person's sources. */
export function viewerOf(caller: Caller): Viewer {
  const { principal } = caller;
  const onlyVendor =
    principal.kind === "person" && principal.roles.includes("vendor") && !hasRole(principal.roles, ["review", "security"]);
  return { visibility: visibilityOf(principal), sources: onlyVendor ? principal.vendorSources : null };
}

/** Whose kept answers a request may replay: its key's, or its person's (an `Idempotency-Key` is the caller's own). */
export function callerScope({ principal }: Caller): string {
  return principal.kind === "key" ? `key:${principal.keyId}` : `person:${principal.personId}`;
}
