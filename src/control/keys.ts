import { and, asc, eq, gt, or } from "drizzle-orm";
import { formatSourceKey, type KeyMode, keyDigest, newKeyId, newKeySecret } from "../auth/source-key";
import type { Scope } from "../contract/common";
import type { Key, KeyInput } from "../contract/control";
import { decodeCursor, pageFrom } from "../http/cursor";
import { Problem } from "../http/problem";
import { type ControlDb, iso, isoOrNull } from "./db";
import { keys } from "./schema";
import type { SpaceRow } from "./spaces";

type KeyRow = typeof keys.$inferSelect;

export interface KeyIssuer {
  prefix: string;
  pepper: CryptoKey;
}

/**
 * A key as answered. `expired` is derived from `expires_at` when the key is read, never stored: a
 * revoked key stays `revoked` whatever its `expires_at`.
 */
export function keyView(row: KeyRow, now: number, key?: string): Key {
  return {
    key_id: row.keyId,
    source_id: row.sourceId,
    space_id: row.spaceId,
    scopes: row.scopes as Scope[],
    mode: row.mode as KeyMode,
    status: statusOf(row, now),
    created_at: iso(row.createdAt),
    rotated_at: isoOrNull(row.rotatedAt),
    revoked_at: isoOrNull(row.revokedAt),
    expires_at: isoOrNull(row.expiresAt),
    ...(key ? { key } : {}),
  };
}

function statusOf(row: KeyRow, now: number): Key["status"] {
  if (row.status === "revoked") return "revoked";
  return row.expiresAt !== null && row.expiresAt <= now ? "expired" : "active";
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
  return keyView(row, now, key);
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
  return keyView({ ...row, digest, rotatedAt: now }, now, key);
}

/** Revoking twice answers the same revoked key: a retry after a lost answer is safe. */
export function revokeKey(db: ControlDb, row: KeyRow, now: number): Key {
  if (row.status === "revoked") return keyView(row, now);
  db.update(keys).set({ status: "revoked", revokedAt: now }).where(eq(keys.keyId, row.keyId)).run();
  return keyView({ ...row, status: "revoked", revokedAt: now }, now);
}

export function requireKey(db: ControlDb, tenantId: string, keyId: string): KeyRow {
  const row = db.select().from(keys).where(eq(keys.keyId, keyId)).get();
  if (!row || row.tenantId !== tenantId) throw new Problem("not_found", "no such key");
  return row;
}

/**
 * A page of a source's keys, revoked ones too, oldest first as the other control lists. Key ids
 * are random, so the order is `created_at` then `key_id`, and the cursor carries both.
 */
export function listKeys(db: ControlDb, sourceId: string, cursor: string | undefined, limit: number, now: number) {
  const after = afterOf(cursor);
  const rows = db
    .select()
    .from(keys)
    .where(
      and(
        eq(keys.sourceId, sourceId),
        after
          ? or(gt(keys.createdAt, after.createdAt), and(eq(keys.createdAt, after.createdAt), gt(keys.keyId, after.keyId)))
          : undefined,
      ),
    )
    .orderBy(asc(keys.createdAt), asc(keys.keyId))
    .limit(limit + 1)
    .all();
  const page = pageFrom(rows, limit, (row) => `${row.createdAt}:${row.keyId}`);
  return { data: page.data.map((row) => keyView(row, now)), next_cursor: page.next_cursor };
}

function afterOf(cursor: string | undefined): { createdAt: number; keyId: string } | null {
  const after = decodeCursor(cursor);
  if (after === null) return null;
  const match = /^(\d{1,15}):([a-z2-7]{12})$/.exec(after);
  if (!match) throw new Problem("invalid_input", "query.cursor: not_issued_by_this_service");
  return { createdAt: Number(match[1]), keyId: match[2] as string };
}
