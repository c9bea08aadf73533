import { describe, expect, it } from "vitest";
import {
  compileBacklog,
  compiledMemory,
  compileQueueLength,
  compileSlice,
  hurryCompile,
  queueCompile,
  readerWaits,
  SLICE_BUDGET_MS,
} from "../../src/space/memory/compiler";
import { withIntake } from "../support/intake";

const NOW = Date.UTC(2026, 10, 24, 12, 0, 0);
/** A stopwatch whose every reading is a whole slice later: a slice compiles one session. */
const ticking = () => {
  let ms = 0;
  return () => (ms += SLICE_BUDGET_MS);
};
const queued = (entries: [session: string, profile: string, events: number][]) =>
  new Map(entries.map(([session, profileId, events]) => [session, { profileId, events }]));

interface QueueRow extends Record<string, SqlStorageValue> {
  session_id: string;
  profile_id: string;
  events: number;
  queued_at: number;
}

describe("the compile queue: batches append to an inbox, which the compiler folds in", () => {
  it("counts a session once however many batches queued it, and pending adds up the queue and the inbox", async () => {
    await withIntake((_intake, sql) => {
      queueCompile(
        sql,
        queued([
          ["s1", "p1", 2],
          ["s2", "p2", 1],
        ]),
        NOW,
      );
      queueCompile(sql, queued([["s1", "p1", 3]]), NOW + 10);
      expect(compileQueueLength(sql)).toBe(2);
      expect(compileBacklog(sql, 3)).toBe(true); // a measure of load: s1 counts twice
      expect(compiledMemory(sql, "p1", ["p1"]).pending).toBe(5);
      queueCompile(sql, queued([["s3", "p3", 4]]), NOW + 20); // queued after a read: still counted
      expect(compiledMemory(sql, "p3", ["p3"]).pending).toBe(4);

      compileSlice(sql, NOW + 200, ticking()); // folds, then compiles s1 only
      queueCompile(sql, queued([["s1", "p1", 1]]), NOW + 300);
      expect(compiledMemory(sql, "p1", ["p1"]).pending).toBe(1);
      expect(compiledMemory(sql, "p2", ["p2"]).pending).toBe(1);
      expect(compileQueueLength(sql)).toBe(3);
    });
  });

  it("keeps a session a reader hurried at the front once folded, and empties the inbox", async () => {
    const rows = await withIntake((_intake, sql) => {
      queueCompile(sql, queued([["old", "p0", 1]]), NOW - 5_000);
      queueCompile(sql, queued([["s1", "p1", 1]]), NOW);
      expect(readerWaits(sql)).toBe(false);
      hurryCompile(sql, ["p1"]);
      expect(readerWaits(sql)).toBe(true);
      compileSlice(sql, NOW, ticking()); // one session: the hurried one, though "old" was queued first
      return {
        queue: sql.exec<QueueRow>("SELECT * FROM compile_queue").toArray(),
        inbox: sql.exec("SELECT * FROM compile_inbox").toArray(),
      };
    });
    expect(rows.inbox).toEqual([]);
    expect(rows.queue.map((row) => [row.session_id, row.queued_at])).toEqual([["old", NOW - 5_000]]);
  });

  it("compiles what the inbox held: a slice leaves neither inbox nor queue", async () => {
    const length = await withIntake((_intake, sql) => {
      queueCompile(
        sql,
        queued([
          ["s1", "p1", 1],
          ["s2", "p1", 1],
        ]),
        NOW,
      );
      queueCompile(sql, queued([["s1", "p1", 1]]), NOW + 1);
      compileSlice(sql, NOW + 200, () => 0);
      return compileQueueLength(sql);
    });
    expect(length).toBe(0);
  });
});
