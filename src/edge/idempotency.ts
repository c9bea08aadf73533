import type { Context } from "hono";
import { toHex } from "../auth/source-key";
import type { IdempotencyRequest } from "../idempotency";
import type { AppEnv } from "./context";

/**
 * The `Idempotency-Key` of a write with the hash of what it asks (method, path, body), so the
 * same key with another request is recognised as a conflict. Control routes validate the header
 * with their schema; data routes hand it to the space's object, which checks it after the
 * credential. `body` is the text a data route read itself.
 */
export async function idempotencyOf(c: Context<AppEnv>, key: string, body?: string): Promise<IdempotencyRequest> {
  body ??= "text" in c.req.bodyCache ? await c.req.text() : "";
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${c.req.method} ${c.req.path}\n${body}`));
  return { scope: "", key, requestHash: toHex(new Uint8Array(digest)) };
}
