import type { Context } from "hono";
import { toHex } from "../auth/source-key";
import type { IdempotencyRequest } from "../idempotency";
import type { AppEnv } from "./context";
import { edgeSecrets } from "./secrets";

/**
 * The `Idempotency-Key` of a write with the hash of what it asks (method, path, body), so the
 * same key with another request is recognised as a conflict. Control routes validate the header
 * with their schema; data routes hand it to the space's object, which checks it after the
 * credential. `body` is the text a data route read itself. The hash is keyed (HMAC with
 * `KEY_PEPPER`, which no database holds): a body can hold a handle (a forget's, an export's), and
 * a plain digest of a phone number in a known body is found again by trying every number.
 */
export async function idempotencyOf(c: Context<AppEnv>, key: string, body?: string): Promise<IdempotencyRequest> {
  body ??= "text" in c.req.bodyCache ? await c.req.text() : "";
  const { pepper } = await edgeSecrets(c.env);
  const request = new TextEncoder().encode(`idempotency:${c.req.method} ${c.req.path}\n${body}`);
  return { scope: "", key, requestHash: toHex(new Uint8Array(await crypto.subtle.sign("HMAC", pepper, request))) };
}
