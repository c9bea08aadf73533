/**
 * The development store's credential (docs/api/media.md): what a reservation allows, signed with
 * HMAC-SHA256 under `UPLOAD_SECRET`, carried in `X-Upload-Token`. It names one reservation of one
 * space and the exact bytes it takes, and expires with the reservation; the source key never
 * travels with an upload.
 */
export interface UploadGrant {
  space: string;
  mediaRef: string;
  contentType: string;
  sizeBytes: number;
  sha256: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
}

export const UPLOAD_TOKEN_HEADER = "X-Upload-Token";

export function importUploadKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
    "verify",
  ]);
}

export async function signUploadGrant(key: CryptoKey, grant: UploadGrant): Promise<string> {
  const payload = base64url(new TextEncoder().encode(JSON.stringify(grant)));
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(payload));
  return `${payload}.${base64url(new Uint8Array(mac))}`;
}

/** The grant a token carries when its signature holds (expiry is the caller's to judge), else null. */
export async function verifyUploadToken(key: CryptoKey, token: string): Promise<UploadGrant | null> {
  const [payload, mac, extra] = token.split(".");
  if (payload === undefined || mac === undefined || extra !== undefined) return null;
  const signature = fromBase64url(mac);
  if (!signature) return null;
  // `verify` compares in constant time.
  if (!(await crypto.subtle.verify("HMAC", key, signature, new TextEncoder().encode(payload)))) return null;
  const bytes = fromBase64url(payload);
  return bytes ? (JSON.parse(new TextDecoder().decode(bytes)) as UploadGrant) : null;
}

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** The bytes of `text` if it is how `base64url` writes them: another spelling (bits base64 leaves unused set) is no token. */
function fromBase64url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  try {
    const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
    const bytes = Uint8Array.from(binary, (character) => character.charCodeAt(0));
    return base64url(bytes) === text ? bytes : null;
  } catch {
    return null;
  }
}
