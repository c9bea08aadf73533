import { toHex } from "./source-key";

/**
 * A random 256-bit key an object keeps for itself under `name` (table `signing_keys`, in both
 * objects' schemas), made on first use. It signs what the object hands out and must get back
 * unchanged (paging cursors); it never leaves the object, so nothing else can make a valid one.
 */
export function signingKey(sql: SqlStorage, name: string): Uint8Array {
  const row = sql.exec<{ secret: string }>("SELECT secret FROM signing_keys WHERE name = ?", name).toArray()[0];
  if (row) return Uint8Array.from(row.secret.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));
  const secret = crypto.getRandomValues(new Uint8Array(32));
  sql.exec("INSERT INTO signing_keys (name, secret) VALUES (?, ?)", name, toHex(secret));
  return secret;
}
