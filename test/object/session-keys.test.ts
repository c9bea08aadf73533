import { describe, expect, it } from "vitest";
import migration from "../../migrations/space/0011_conversation_first_keys.sql";
import { foldSessions } from "../../src/space/memory/sessions";
import { TRACK_CALLER as caller, storeBatch, withIntake } from "../support/intake";
import { message } from "../support/seed";

const NOW = Date.UTC(2026, 10, 24, 12, 0, 0);
const MINUTE = 60_000;
const at = (ms: number) => new Date(ms).toISOString();
const say = (key: string, ms: number) =>
  message({ idempotency_key: key, conversation_id: "conv-1", channel: "whatsapp", occurred_at: at(ms) });

type SessionKeyRow = {
  session_id: string;
  conversation_key: string;
  profile_id: string;
  status: string;
  last_at: number;
};

describe("session keys begin with the conversation (migration 0011)", () => {
  it("rewrites a key stored before it, and the conversation's next event and its end find that session", async () => {
    const rows = await withIntake((intake, sql) => {
      const ingest = (items: unknown[], now: number) => storeBatch(intake, caller, { items }, now, { clock_tolerance_s: 300 });
      ingest([say("a", NOW - 2 * MINUTE)], NOW);
      foldSessions(sql);
      const first = sql.exec<SessionKeyRow>("SELECT * FROM sessions").one();
      expect(first.conversation_key).toBe(`c:conv-1:${first.profile_id}`);

      // As a space stored it before 0011, then the migration's data step.
      sql.exec("UPDATE sessions SET conversation_key = ?", `c:${first.profile_id}:conv-1`);
      const update = migration.split("--> statement-breakpoint").find((statement) => statement.includes("UPDATE"));
      sql.exec(update ?? "");
      expect(sql.exec<SessionKeyRow>("SELECT * FROM sessions").one().conversation_key).toBe(`c:conv-1:${first.profile_id}`);

      ingest([say("b", NOW - MINUTE)], NOW);
      ingest([{ type: "conversation.ended", idempotency_key: "end", conversation_id: "conv-1", occurred_at: at(NOW) }], NOW);
      foldSessions(sql);
      return sql.exec<SessionKeyRow>("SELECT * FROM sessions").toArray();
    });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: "closed", last_at: NOW - MINUTE });
  });

  it("ends only the conversation named, not one whose id begins with it and a colon", async () => {
    const rows = await withIntake((intake, sql) => {
      const items = [say("a", NOW - MINUTE), { ...say("b", NOW - MINUTE), conversation_id: "conv-1:2" }];
      storeBatch(intake, caller, { items }, NOW, { clock_tolerance_s: 300 });
      storeBatch(
        intake,
        caller,
        { items: [{ type: "conversation.ended", idempotency_key: "end", conversation_id: "conv-1", occurred_at: at(NOW) }] },
        NOW,
        { clock_tolerance_s: 300 },
      );
      foldSessions(sql);
      return sql
        .exec<{ conversation_id: string; status: string }>(
          "SELECT conversation_id, status FROM sessions ORDER BY conversation_id",
        )
        .toArray();
    });
    expect(rows).toEqual([
      { conversation_id: "conv-1", status: "closed" },
      { conversation_id: "conv-1:2", status: "open" },
    ]);
  });
});
