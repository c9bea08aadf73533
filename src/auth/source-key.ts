/**
 * Source keys: `<prefix>_<live|test>_<region>_<space>_<key_id>_<secret>` (DESIGN 3.1).
 * The last 6 characters of the secret are a checksum of the first 26, so a mistyped key is
 * refused at the edge without a lookup. Only an HMAC digest of the secret is ever stored.
 */
const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const KEY_PATTERN = /^([a-z][a-z0-9]{0,15})_(live|test)_([a-z0-9-]{1,63})_([a-z0-9-]{1,63})_([a-z2-7]{12})_([0-9A-Za-z]{32})$/;

export type KeyMode = "live" | "test";

export interface SourceKey {
  prefix: string;
  mode: KeyMode;
  region: string;
  space: string;
  keyId: string;
  secret: string;
}

/** The parts of a well-formed key with a valid checksum, or null. */
export function parseSourceKey(text: string, prefix: string): SourceKey | null {
  const match = KEY_PATTERN.exec(text);
  if (!match) return null;
  const [, keyPrefix, mode, region, space, keyId, secret] = match as unknown as [
    string,
    string,
    KeyMode,
    string,
    string,
    string,
    string,
  ];
  if (keyPrefix !== prefix) return null;
  if (checksum(secret.slice(0, 26)) !== secret.slice(26)) return null;
  return { prefix: keyPrefix, mode, region, space, keyId, secret };
}

export function formatSourceKey(key: SourceKey): string {
  return [key.prefix, key.mode, key.region, key.space, key.keyId, key.secret].join("_");
}

export function newKeyId(): string {
  return randomString(BASE32, 12);
}

export function newKeySecret(): string {
  const body = randomString(BASE62, 26);
  return body + checksum(body);
}

/** HMAC-SHA256(pepper, secret) in hex: the only form in which a key is stored. */
export async function keyDigest(pepper: CryptoKey, secret: string): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", pepper, new TextEncoder().encode(secret));
  return toHex(new Uint8Array(mac));
}

export function importPepper(pepper: string): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", new TextEncoder().encode(pepper), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

function checksum(text: string): string {
  let value = crc32(text);
  let out = "";
  for (let i = 0; i < 6; i++) {
    out = BASE62[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(text: string): number {
  let crc = 0xffffffff;
  for (let i = 0; i < text.length; i++) {
    crc = (CRC_TABLE[(crc ^ text.charCodeAt(i)) & 0xff] as number) ^ (crc >>> 8);
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** Uniform characters from `alphabet` (rejection sampling, no modulo bias). */
function randomString(alphabet: string, length: number): string {
  const limit = 256 - (256 % alphabet.length);
  let out = "";
  while (out.length < length) {
    for (const byte of crypto.getRandomValues(new Uint8Array(length * 2))) {
      if (byte < limit && out.length < length) out += alphabet[byte % alphabet.length];
    }
  }
  return out;
}

export function toHex(bytes: Uint8Array): string {
  let out = "";
  for (const byte of bytes) out += byte.toString(16).padStart(2, "0");
  return out;
}
