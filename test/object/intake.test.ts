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

  it("places a late event in the session started last before it, not in a later open one that would also hold it", async () => {
    const at = (minutesAgo: number) => new Date(NOW - minutesAgo * 60_000).toISOString();
    const event = (key: string, minutesAgo: number) =>
      message({ idempotency_key: key, channel: "whatsapp", conversation_id: "c-late", occurred_at: at(minutesAgo) });
    const sessions = await withIntake((intake, sql) => {
      const config = { clock_tolerance_s: 300 };
      // 34 minutes ago starts a session that closed 14 minutes ago (window 20); 10 minutes ago, the next one.
      storeBatch(intake, caller, { items: [event("a", 34), event("b", 10)] }, NOW, config);
      // 29 minutes ago: held by both (the later one reaches 20 minutes back), and the earlier one's it is.
      storeBatch(intake, caller, { items: [event("late", 29)] }, NOW, config);
      return sql
        .exec<{ idempotency_key: string; session_id: string }>(
          "SELECT idempotency_key, session_id FROM items ORDER BY idempotency_key",
        )
        .toArray();
    });
    const sessionOf = new Map(sessions.map((row) => [row.idempotency_key, row.session_id]));
    expect(sessionOf.get("late")).toBe(sessionOf.get("a"));
    expect(sessionOf.get("a")).not.toBe(sessionOf.get("b"));
  });
});
