import { runInDurableObject } from "cloudflare:test";
import { expect } from "vitest";
import { ErasureStatusSchema, ReceiptKeySchema, ReceiptSchema } from "../../src/contract/privacy";
import type { SpaceObject } from "../../src/space/object";
import { runAlarms, stub } from "./memory";
import { call, json, type Space } from "./seed";

/** What privacy tests share: forget and receipt reads parsed with the routes' schemas, a receipt checked with WebCrypto, the table scan. */

export function forgetResponse(space: Space, token: string, body: unknown, idempotencyKey: string | null = crypto.randomUUID()) {
  return call("POST", `/spaces/${space.name}/v1/forget`, {
    token,
    body,
    headers: idempotencyKey === null ? {} : { "idempotency-key": idempotencyKey },
  });
}

export type Receipt = ReturnType<typeof ReceiptSchema.parse>;
export type Erasure = { status: 200; receipt: Receipt } | { status: 202; receiptId: string };

/** An answer of `POST /v1/forget` or `GET /v1/privacy/receipts/{id}`, parsed by its status. */
export async function erasureOf(response: Response): Promise<Erasure> {
  const text = await response.text();
  if (response.status === 200) return { status: 200, receipt: ReceiptSchema.parse(JSON.parse(text)) };
  expect(response.status, text).toBe(202);
  return { status: 202, receiptId: ErasureStatusSchema.parse(JSON.parse(text)).receipt_id };
}

export async function forget(space: Space, token: string, body: unknown, idempotencyKey?: string): Promise<Erasure> {
  return erasureOf(await forgetResponse(space, token, body, idempotencyKey));
}

/**
 * A forget run to its receipt: answered at once when the first slice was enough (the usual case of
 * a small subject), else the alarm runs the rest.
 */
export async function forgotten(space: Space, token: string, body: unknown, idempotencyKey?: string): Promise<Receipt> {
  const erasure = await forget(space, token, body, idempotencyKey);
  if (erasure.status === 200) return erasure.receipt;
  await runAlarms(space);
  const done = await erasureOf(await receiptResponse(space, token, erasure.receiptId));
  if (done.status !== 200) throw new Error("the erasure did not finish");
  return done.receipt;
}

export function receiptResponse(space: Space, token: string, receiptId: string) {
  return call("GET", `/spaces/${space.name}/v1/privacy/receipts/${encodeURIComponent(receiptId)}`, { token });
}

export async function receiptKey(space: Space, token: string, kid?: string) {
  const query = kid === undefined ? "" : `?kid=${encodeURIComponent(kid)}`;
  return ReceiptKeySchema.parse(
    await json(await call("GET", `/spaces/${space.name}/v1/privacy/receipt-key${query}`, { token }), 200),
  );
}

/**
 * RFC 8785 for what a receipt holds (objects, strings, non-negative integers), written here and
 * not imported, so the check does not rest on the service's own canonicalizer.
 */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([name, member]) => `${JSON.stringify(name)}:${canonical(member)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** Whether `receipt` verifies with `jwk` by WebCrypto: Ed25519 over the receipt without `signature`, canonical JSON. */
export async function verifies(receipt: Record<string, unknown>, jwk: JsonWebKey): Promise<boolean> {
  const { signature, ...unsigned } = receipt;
  const key = await crypto.subtle.importKey("jwk", jwk, { name: "Ed25519" }, false, ["verify"]);
  const bytes = Uint8Array.from(atob(String(signature).replaceAll("-", "+").replaceAll("_", "/")), (c) => c.charCodeAt(0));
  return crypto.subtle.verify({ name: "Ed25519" }, key, bytes, new TextEncoder().encode(canonical(unsigned)));
}

/**
 * Every table of the space's database (from `sqlite_master`, so a table added later is scanned
 * too), every value of every row, text and blobs alike: where any of `needles` occurs
 * (case-insensitive). Answers `table: needle` for each hit.
 */
export function scanFor(space: Space, needles: readonly string[]): Promise<string[]> {
  const wanted = needles.map((needle) => needle.toLowerCase());
  return runInDurableObject(stub(space), (_instance: SpaceObject, state) => {
    const sql = state.storage.sql;
    const tables = sql
      .exec<{ name: string }>(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'",
      )
      .toArray()
      .map((row) => row.name);
    const hits = new Set<string>();
    const decoder = new TextDecoder("latin1");
    for (const table of tables) {
      for (const row of sql.exec(`SELECT * FROM "${table}"`)) {
        for (const value of Object.values(row)) {
          const text =
            typeof value === "string" ? value : value instanceof ArrayBuffer ? decoder.decode(new Uint8Array(value)) : null;
          if (text === null) continue;
          const lower = text.toLowerCase();
          for (const needle of wanted) if (lower.includes(needle)) hits.add(`${table}: ${needle}`);
        }
      }
    }
    return [...hits].sort();
  });
}
