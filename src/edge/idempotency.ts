import type { Context } from "hono";
import { toHex } from "../auth/source-key";
import type { IdempotencyRequest } from "../idempotency";
import type { AppEnv } from "./context";

/**
 * The `Idempotency-Key` of a write with the hash of what it asks (method, path, body), so the
 * same key with another request is recognised as a conflict. The header itself is validated by
 * the route's schema.
 */
export async function idempotencyOf(c: Context<AppEnv>, key: string): Promise<IdempotencyRequest> {
  const body = "text" in c.req.bodyCache ? await c.req.text() : "";
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${c.req.method} ${c.req.path}\n${body}`));
  return { scope: "", key, requestHash: toHex(new Uint8Array(digest)) };
}
