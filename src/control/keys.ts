import { eq } from "drizzle-orm";
import { formatSourceKey, type KeyMode, keyDigest, newKeyId, newKeySecret } from "../auth/source-key";
import type { Scope } from "../contract/common";
import type { Key, KeyInput } from "../contract/control";
import { Problem } from "../http/problem";
import { type ControlDb, iso, isoOrNull } from "./db";
import { keys } from "./schema";
import type { SpaceRow } from "./spaces";

type KeyRow = typeof keys.$inferSelect;

export interface KeyIssuer {
  prefix: string;
  pepper: CryptoKey;
}

export function keyView(row: KeyRow, key?: string): Key {
  return {
    key_id: row.keyId,
    source_id: row.sourceId,
    space_id: row.spaceId,
    scopes: row.scopes as Scope[],
    mode: row.mode as KeyMode,
    status: row.status as Key["status"],
    created_at: iso(row.createdAt),
    rotated_at: isoOrNull(row.rotatedAt),
    revoked_at: isoOrNull(row.revokedAt),
    expires_at: isoOrNull(row.expiresAt),
    ...(key ? { key } : {}),
  };
}

export interface IssuedSecret {
  keyId: string;
  key: string;
  digest: string;
}

/**
 * A secret for a key, new or rotated (`keyId`): the whole key, to show once, and the digest, to
 * keep. Issued before the transaction that stores it, since hashing is asynchronous.
 */
export async function issueSecret(issuer: KeyIssuer, space: SpaceRow, mode: KeyMode, keyId = newKeyId()): Promise<IssuedSecret> {
  const secret = newKeySecret();
  const key = formatSourceKey({ prefix: issuer.prefix, mode, region: space.region, space: space.name, keyId, secret });
  return { keyId, key, digest: await keyDigest(issuer.pepper, secret) };
}

export function createKey(
  db: ControlDb,
  { keyId, key, digest }: IssuedSecret,
  source: { tenantId: string; sourceId: string; kind: string },
  space: SpaceRow,
  input: KeyInput,
  now: number,
): Key {
  requireScopesOfKind(input.scopes, source.kind);
  const expiresAt = input.expires_at ? Date.parse(input.expires_at) : null;
  if (expiresAt !== null && expiresAt <= now) throw new Problem("invalid_input", "expires_at: in_the_past");
  const row: KeyRow = {
    keyId,
    tenantId: source.tenantId,
    sourceId: source.sourceId,
    spaceId: space.spaceId,
    scopes: input.scopes,
    mode: input.mode,
    digest,
    status: "active",
    createdAt: now,
    rotatedAt: null,
    revokedAt: null,
    expiresAt,
  };
  db.insert(keys).values(row).run();
  return keyView(row, key);
}

/** `analytics` is for analyst sources only (SPEC, base-wide analysis); the input schema cannot know the source. */
function requireScopesOfKind(scopes: readonly Scope[], kind: string): void {
  const at = scopes.indexOf("analytics");
  if (at >= 0 && kind !== "analyst") throw new Problem("invalid_input", `scopes.${at}: analyst_sources_only`);
}

/**
 * A key that no longer works cannot be rotated: its new secret would be refused too. A revoked or
 * expired key exists (revoking it again answers it), so it is `409`, not `404`.
 */
function requireLive(row: KeyRow, now: number): void {
  if (row.status === "revoked") throw new Problem("conflict", "the key is revoked; create a new one");
  if (row.expiresAt !== null && row.expiresAt <= now) throw new Problem("conflict", "the key has expired; create a new one");
}

/** A new secret for the same key id; the old secret stops working at once. */
export function rotateKey(db: ControlDb, { key, digest }: IssuedSecret, row: KeyRow, now: number): Key {
  requireLive(row, now);
  db.update(keys).set({ digest, rotatedAt: now }).where(eq(keys.keyId, row.keyId)).run();
  return keyView({ ...row, digest, rotatedAt: now }, key);
}

/** Revoking twice answers the same revoked key: a retry after a lost answer is safe. */
export function revokeKey(db: ControlDb, row: KeyRow, now: number): Key {
  if (row.status === "revoked") return keyView(row);
  db.update(keys).set({ status: "revoked", revokedAt: now }).where(eq(keys.keyId, row.keyId)).run();
  return keyView({ ...row, status: "revoked", revokedAt: now });
}

export function requireKey(db: ControlDb, tenantId: string, keyId: string): KeyRow {
  const row = db.select().from(keys).where(eq(keys.keyId, keyId)).get();
  if (!row || row.tenantId !== tenantId) throw new Problem("not_found", "no such key");
  return row;
}
