import { describe, expect, it } from "vitest";
import { TRACK_CALLER as caller, storeBatch, withIntake } from "../support/intake";
import { message } from "../support/seed";

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);

describe("intake: a batch as plain functions over the space's database", () => {
  it("keeps the first of two items with one key in a batch, even when the second happened earlier", async () => {
    const rows = await withIntake((intake, sql) => {
      const answer = storeBatch(
        intake,
        caller,
        {
          items: [
            message({ idempotency_key: "k", content: { text: "first" }, occurred_at: "2026-11-22T11:00:00Z" }),
            message({ idempotency_key: "k", content: { text: "second" }, occurred_at: "2026-11-22T10:00:00Z" }),
          ],
        },
        NOW,
        { clock_tolerance_s: 300 },
      ).answer;
      expect(answer).toEqual({ accepted: 1, duplicates: 1, errors: [] });
      return sql.exec<{ body: string }>("SELECT body FROM items").toArray();
    });
    expect(rows.map((row) => JSON.parse(row.body).content.text)).toEqual(["first"]);
  });

  it("treats the tolerance as a bound: arrival + tolerance is kept, one millisecond later is corrected", async () => {
    const rows = await withIntake((intake, sql) => {
      storeBatch(
        intake,
        caller,
        {
          items: [
            message({ idempotency_key: "edge", occurred_at: new Date(NOW + 300_000).toISOString() }),
            message({ idempotency_key: "over", occurred_at: new Date(NOW + 300_001).toISOString() }),
          ],
        },
        NOW,
        { clock_tolerance_s: 300 },
      ).answer;
      return sql
        .exec<{ idempotency_key: string; occurred_at: number; clock_corrected: number }>(
          "SELECT idempotency_key, occurred_at, clock_corrected FROM items ORDER BY idempotency_key",
        )
        .toArray();
    });
    expect(rows).toEqual([
      { idempotency_key: "edge", occurred_at: NOW + 300_000, clock_corrected: 0 },
      { idempotency_key: "over", occurred_at: NOW, clock_corrected: 1 },
    ]);
  });

  it("stores items without occurred_at (heartbeat) at the arrival time, not flagged", async () => {
    const rows = await withIntake((intake, sql) => {
      storeBatch(intake, caller, { items: [{ type: "heartbeat", idempotency_key: "hb", day: "2026-11-22", sent: 3 }] }, NOW, {
        clock_tolerance_s: 300,
      }).answer;
      return sql
        .exec<{ occurred_at: number; clock_corrected: number }>("SELECT occurred_at, clock_corrected FROM items")
        .toArray();
    });
    expect(rows).toEqual([{ occurred_at: NOW, clock_corrected: 0 }]);
  });
});
