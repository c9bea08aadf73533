import type { IntakeCaller } from "../intake";
import type { Replica } from "../replica";

/**
 * The key that sent a file, as the intake sees a batch's caller, read again for every chunk:
 * an import runs under the same protections as a batch, so a key revoked or expired since stops
 * it (null).
 */
export function importerOf(replica: Replica, keyId: string, now: number): IntakeCaller | null {
  const key = replica.keys.get(keyId);
  const source = key ? replica.sources.get(key.sourceId) : undefined;
  if (!key || !source || key.status !== "active" || (key.expiresAt !== null && key.expiresAt <= now)) return null;
  return { keyId: key.keyId, sourceId: key.sourceId, scopes: key.scopes, test: key.mode === "test", source };
}

export const KEY_GONE = "key_revoked: the key that sent the file was revoked or has expired";
