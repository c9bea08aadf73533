import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { LinkSchema } from "../../src/contract/identity";
import { linkResponse, phone, query, systemId } from "../support/identity";
import { batch, createSpace, json, message } from "../support/seed";

/**
 * What a kept `Idempotency-Key` answer keeps of its request (docs/api/contract.md
 * "Idempotency-Key"): a hash keyed by `KEY_PEPPER`, so a body holding a phone number cannot be
 * found again from the database by trying numbers.
 */

const hex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((byte) => byte.toString(16).padStart(2, "0")).join("");

async function hmac(text: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(env.KEY_PEPPER as string),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return hex(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(text)));
}

describe("kept answers: the request's hash", () => {
  it("is keyed by the pepper, not a plain digest of a body holding a handle, and still tells a retry from another request", async () => {
    const space = await createSpace();
    const [person, org] = [phone("+15555550171"), systemId("acct-171")];
    expect((await batch(space, [message({ handles: [person] }), message({ handles: [org] })])).status).toBe(200);
    const body = { person: { handle: person }, organization: { handle: org }, kind: "account" };
    const key = crypto.randomUUID();
    const linked = LinkSchema.parse(await json(await linkResponse(space, body, space.key, key), 201));

    const request = `POST /spaces/${space.name}/v1/identity/links\n${JSON.stringify(body)}`;
    const plain = hex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(request)));
    const kept = await query<{ request_hash: string }>(space, "SELECT request_hash FROM idempotency_records");
    expect(kept).toEqual([{ request_hash: await hmac(`idempotency:${request}`) }]);
    expect(kept[0]?.request_hash).not.toBe(plain);

    // The same request under the key is a retry; another under it a conflict.
    const replayed = LinkSchema.parse(await json(await linkResponse(space, body, space.key, key), 201));
    expect(replayed.link_id).toBe(linked.link_id);
    const other = await linkResponse(space, { ...body, kind: "partner" }, space.key, key);
    expect(other.status).toBe(409);
  });
});
