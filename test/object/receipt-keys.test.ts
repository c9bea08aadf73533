import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { SpaceObject } from "../../src/space/object";
import { currentReceiptKey, RECEIPT_KEY_DAYS } from "../../src/space/privacy/receipt-keys";
import { stub } from "../support/memory";
import { createSpace } from "../support/seed";

const DAY_MS = 86_400_000;

/**
 * The key that signs receipts (src/space/privacy/receipt-keys.ts), made by whoever needs it first
 * and with no promise shared between callers: callers that make one at once keep one.
 */
describe("the receipt key, asked for by several callers at once", () => {
  it("stores one key for callers that each made one, and one new key when it is due again", async () => {
    const space = await createSpace();
    await runInDurableObject(stub(space), async (_instance: SpaceObject, state) => {
      const sql = state.storage.sql;
      const now = Date.now();
      const keys = await Promise.all(Array.from({ length: 4 }, () => currentReceiptKey(sql, now)));
      expect(new Set(keys.map((key) => key.kid)).size).toBe(1);
      expect(sql.exec("SELECT kid FROM receipt_keys").toArray()).toEqual([{ kid: keys[0]?.kid }]);

      const later = now + RECEIPT_KEY_DAYS * DAY_MS;
      const next = await Promise.all(Array.from({ length: 4 }, () => currentReceiptKey(sql, later)));
      expect(new Set(next.map((key) => key.kid)).size).toBe(1);
      expect(next[0]?.kid).not.toBe(keys[0]?.kid);
      expect(sql.exec("SELECT kid, private_key IS NOT NULL AS held FROM receipt_keys ORDER BY created_at").toArray()).toEqual([
        { kid: keys[0]?.kid, held: 0 },
        { kid: next[0]?.kid, held: 1 },
      ]);
    });
  });
});
