import { signingKey } from "../../auth/signing-key";
import { base64url } from "./base64url";
import { canonicalJson } from "./canonical-json";
import type { SigningReceiptKey } from "./receipt-keys";

/** What an erasure erased, by kind of data (docs/api/privacy.md "Receipts"). */
export interface ErasureCounts {
  profiles: number;
  handles: number;
  events: number;
  /** Other subjects' items that named one of the subject's handles: the handle taken out of them. */
  mentions: number;
  sessions: number;
  memory_items: number;
  search_rows: number;
  links: number;
  suggestions: number;
  identity_evidence: number;
  served_contexts: number;
  kept_answers: number;
  /** Exports of the subject's data: their records and their files in R2. */
  exports: number;
  /** Media files reserved under the subject or pointed to by its events: their rows and their objects in R2. */
  media: number;
  /** Records of file imports stored as the subject's items. */
  import_rows: number;
}

export const noCounts = (): ErasureCounts => ({
  profiles: 0,
  handles: 0,
  events: 0,
  mentions: 0,
  sessions: 0,
  memory_items: 0,
  search_rows: 0,
  links: 0,
  suggestions: 0,
  identity_evidence: 0,
  served_contexts: 0,
  kept_answers: 0,
  exports: 0,
  media: 0,
  import_rows: 0,
});

export interface UnsignedReceipt {
  receipt_id: string;
  kid: string;
  subject_hash: string;
  counts: ErasureCounts;
  started_at: string;
  completed_at: string;
}

export type Receipt = UnsignedReceipt & { signature: string };

/**
 * A keyed hash of the subject's handles, so that whoever holds the handles can match a receipt to
 * them and nobody else learns them: HMAC-SHA256 under the space's own `subject` key
 * (`signing_keys`, random, never shown) over the handles as `type`, `scope`, `value` lines,
 * sorted, a blank line between handles; base64url.
 */
export async function subjectHash(
  sql: SqlStorage,
  handles: readonly { type: string; scope: string; value: string }[],
): Promise<string> {
  const text = handles
    .map((handle) => `${handle.type}\n${handle.scope}\n${handle.value}`)
    .sort()
    .join("\n\n");
  const key = await crypto.subtle.importKey("raw", signingKey(sql, "subject"), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  return base64url(new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(text))));
}

/** Ed25519 over the receipt without `signature`, in RFC 8785 canonical JSON; base64url. */
export async function signReceipt(unsigned: UnsignedReceipt, key: SigningReceiptKey): Promise<Receipt> {
  const payload = new TextEncoder().encode(canonicalJson(unsigned));
  const signature = await crypto.subtle.sign({ name: "Ed25519" }, key.privateKey, payload);
  return { ...unsigned, signature: base64url(new Uint8Array(signature)) };
}
