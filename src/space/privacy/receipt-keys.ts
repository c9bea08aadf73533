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
 * new one (the old one retired). Callers serialize this (`ReceiptSigner`): two makers at once
 * would both make one.
 */
export async function currentReceiptKey(sql: SqlStorage, now: number): Promise<SigningReceiptKey> {
  const row = sql
    .exec<KeyRow>("SELECT * FROM receipt_keys WHERE retired_at IS NULL ORDER BY created_at DESC LIMIT 1")
    .toArray()[0];
  if (row?.private_key && now - row.created_at < RECEIPT_KEY_DAYS * DAY_MS) {
    const privateKey = await crypto.subtle.importKey("pkcs8", fromBase64url(row.private_key), ED25519, false, ["sign"]);
    return { kid: row.kid, jwk: JSON.parse(row.public_jwk) as PublicJwk, privateKey };
  }
  const pair = (await crypto.subtle.generateKey(ED25519, true, ["sign", "verify"])) as CryptoKeyPair;
  const exported = (await crypto.subtle.exportKey("jwk", pair.publicKey)) as JsonWebKey;
  const jwk: PublicJwk = { kty: "OKP", crv: "Ed25519", x: exported.x ?? "" };
  const pkcs8 = new Uint8Array((await crypto.subtle.exportKey("pkcs8", pair.privateKey)) as ArrayBuffer);
  const kid = await thumbprint(jwk);
  sql.exec("UPDATE receipt_keys SET retired_at = ?, private_key = NULL WHERE retired_at IS NULL", now);
  sql.exec(
    "INSERT INTO receipt_keys (kid, public_jwk, private_key, created_at) VALUES (?, ?, ?, ?)",
    kid,
    JSON.stringify(jwk),
    base64url(pkcs8),
    now,
  );
  const privateKey = await crypto.subtle.importKey("pkcs8", pkcs8, ED25519, false, ["sign"]);
  return { kid, jwk, privateKey };
}

/** RFC 7638: SHA-256 over the required members in lexicographic order, base64url. */
export async function thumbprint(jwk: PublicJwk): Promise<string> {
  const members = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x });
  return base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(members))));
}
