import { base64url, fromBase64url } from "./base64url";

/**
 * The keys that sign a space's erasure receipts (docs/api/privacy.md "Receipt keys"). Each space
 * makes its own Ed25519 key with WebCrypto the first time it needs one and keeps it in
 * `receipt_keys` (the private key as PKCS #8); it never leaves the object. A key signs receipts
 * for `RECEIPT_KEY_DAYS`; the first signature or key read after that makes a new one and drops
 * the old private key, keeping its public key, so every receipt ever issued stays verifiable by
 * the `kid` it names. `kid` is the key's RFC 7638 thumbprint.
 */
export const RECEIPT_KEY_DAYS = 90;
const DAY_MS = 86_400_000;
const ED25519 = { name: "Ed25519" } as const;

export interface PublicJwk {
  kty: "OKP";
  crv: "Ed25519";
  x: string;
}

export interface ReceiptKey {
  kid: string;
  jwk: PublicJwk;
}

export interface SigningReceiptKey extends ReceiptKey {
  privateKey: CryptoKey;
}

interface KeyRow {
  kid: string;
  public_jwk: string;
  private_key: string | null;
  created_at: number;
  [column: string]: SqlStorageValue;
}

/** The public key named `kid` (a retired one too), or null. */
export function receiptKeyById(sql: SqlStorage, kid: string): ReceiptKey | null {
  const row = sql.exec<KeyRow>("SELECT * FROM receipt_keys WHERE kid = ?", kid).toArray()[0];
  return row ? { kid: row.kid, jwk: JSON.parse(row.public_jwk) as PublicJwk } : null;
}

/**
 * The key that signs now: the current one while it is younger than `RECEIPT_KEY_DAYS`, else a
 * new one (the old one retired). Two callers at once (a forget signing in its request and the
 * alarm's signing round, a key read) may each make a key while they await WebCrypto; the first
 * to store one wins and the others take it, since the check and the store run with no await
 * between them. Nothing serializes the callers with a shared promise, so that no request waits
 * on another's work.
 */
export async function currentReceiptKey(sql: SqlStorage, now: number): Promise<SigningReceiptKey> {
  const current = signingRow(sql, now);
  if (current) return signingKeyOf(current);
  const made = await newKey(now);
  return signingKeyOf(signingRow(sql, now) ?? storeKey(sql, made));
}

/** The current key's row while it may sign at `now`, or null. */
function signingRow(sql: SqlStorage, now: number): KeyRow | null {
  const row = sql
    .exec<KeyRow>("SELECT * FROM receipt_keys WHERE retired_at IS NULL ORDER BY created_at DESC LIMIT 1")
    .toArray()[0];
  return row?.private_key && now - row.created_at < RECEIPT_KEY_DAYS * DAY_MS ? row : null;
}

async function newKey(now: number): Promise<KeyRow> {
  const pair = (await crypto.subtle.generateKey(ED25519, true, ["sign", "verify"])) as CryptoKeyPair;
  const exported = (await crypto.subtle.exportKey("jwk", pair.publicKey)) as JsonWebKey;
  const jwk: PublicJwk = { kty: "OKP", crv: "Ed25519", x: exported.x ?? "" };
  const pkcs8 = new Uint8Array((await crypto.subtle.exportKey("pkcs8", pair.privateKey)) as ArrayBuffer);
  return { kid: await thumbprint(jwk), public_jwk: JSON.stringify(jwk), private_key: base64url(pkcs8), created_at: now };
}

/** Retires the current key (its private half dropped) and stores `row` as the one that signs. */
function storeKey(sql: SqlStorage, row: KeyRow): KeyRow {
  sql.exec("UPDATE receipt_keys SET retired_at = ?, private_key = NULL WHERE retired_at IS NULL", row.created_at);
  sql.exec(
    "INSERT INTO receipt_keys (kid, public_jwk, private_key, created_at) VALUES (?, ?, ?, ?)",
    row.kid,
    row.public_jwk,
    row.private_key,
    row.created_at,
  );
  return row;
}

async function signingKeyOf(row: KeyRow): Promise<SigningReceiptKey> {
  const privateKey = await crypto.subtle.importKey("pkcs8", fromBase64url(row.private_key ?? ""), ED25519, false, ["sign"]);
  return { kid: row.kid, jwk: JSON.parse(row.public_jwk) as PublicJwk, privateKey };
}

/** RFC 7638: SHA-256 over the required members in lexicographic order, base64url. */
export async function thumbprint(jwk: PublicJwk): Promise<string> {
  const members = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x });
  return base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(members))));
}
