import { env, runInDurableObject } from "cloudflare:test";
import { drizzle } from "drizzle-orm/durable-sqlite";
import { describe, expect, it } from "vitest";
import { runDueTimers } from "../../src/space/alarm";
import { implicitTransaction } from "../../src/space/implicit-transaction";
import { type Intake, openIntake } from "../../src/space/intake";
import {
  INDEX_BACKLOG_CAP,
  INDEX_STEP_BYTES,
  INDEX_STEP_ROWS,
  INDEX_YIELD_MS,
  indexBacklogLength,
} from "../../src/space/search/backlog";
import { searchProfile, searchSpace } from "../../src/space/search/search";
import { MAX_TERM_CHARS } from "../../src/space/search/stems";
import { TRACK_CALLER as caller, storeBatch } from "../support/intake";
import { message } from "../support/seed";

/**
 * Messages are indexed after the batch's answer (`search/backlog.ts`): a search never misses a
 * committed message, the index steps give way to saturating writes below the cap, and a
 * restart mid-backlog indexes every message once.
 */

const NOW = Date.UTC(2026, 10, 24, 12, 0, 0);
const CONFIG = { clock_tolerance_s: 300 };
const WHOLE = { visibility: "whole", sources: null } as const;

const said = (phone: string, text: string, minute = 0) =>
  message({
    handles: [{ type: "phone_e164", value: phone }],
    conversation_id: `conv-${phone}`,
    content: { type: "text", text },
    occurred_at: new Date(NOW - 3_600_000 + minute * 60_000).toISOString(),
  });

const indexedMessages = (sql: SqlStorage) =>
  sql.exec<{ n: number }>("SELECT count(*) AS n FROM search_index WHERE kind = 'message'").one().n;

/** A search of the whole space as the object runs it, its catch-up committed by `storage`. */
const spaceSearch = (storage: DurableObjectStorage, query: string) =>
  searchSpace(storage.sql, { query, limit: 20, mode: "plain" }, WHOLE, new Map(), (work) =>
    storage.transactionSync(work),
  ).results.map((result) => result.snippet);

/** Intake on an object's real SQLite, with its storage for the searches' commits. */
const withStorage = <T>(work: (intake: Intake, storage: DurableObjectStorage) => T) =>
  runInDurableObject(env.SPACE.get(env.SPACE.newUniqueId()), (_instance, state) =>
    work(openIntake(drizzle(state.storage), state.storage.sql, implicitTransaction(state)), state.storage),
  );

describe("search: messages indexed after the batch's answer", () => {
  it("finds a message right after its batch, before any index step ran", async () => {
    await withStorage((intake, storage) => {
      const sql = storage.sql;
      const items = ["The wardrobe door came off its hinge", "Thanks", "Can you send a photo?", "Sent it just now"].map(
        (text, i) => said("+15555550301", text, i),
      );
      storeBatch(intake, caller, { items }, NOW, CONFIG);
      expect(indexBacklogLength(sql)).toBe(4);
      expect(indexedMessages(sql)).toBe(0);

      expect(spaceSearch(storage, "hinges")[0]).toBe("The wardrobe door came off its **hinge**");
      expect(indexBacklogLength(sql)).toBe(0);
      expect(indexedMessages(sql)).toBe(4);
      // The step due for them finds nothing left to do, and indexes nothing twice.
      runDueTimers(sql, NOW, { stopwatch: () => performance.now(), mayCompile: () => false });
      expect(indexedMessages(sql)).toBe(4);
    });
  });

  it("indexes first only what a profile's search reads: that profile's messages", async () => {
    await withStorage((intake, storage) => {
      const sql = storage.sql;
      const items = [said("+15555550302", "My kettle leaks", 0), said("+15555550303", "My kettle is fine", 1)];
      storeBatch(intake, caller, { items }, NOW, CONFIG);
      const profileId = sql
        .exec<{ profile_id: string }>("SELECT profile_id FROM handles WHERE value = '+15555550302'")
        .one().profile_id;

      const page = searchProfile(sql, profileId, { q: "kettle", limit: 20, mode: "plain" }, WHOLE, new Map(), (work) =>
        storage.transactionSync(work),
      );
      expect(page.results.map((result) => result.snippet)).toEqual(["My **kettle** leaks"]);
      expect(indexBacklogLength(sql)).toBe(1);
      expect(spaceSearch(storage, "kettle")).toHaveLength(2);
      expect(indexBacklogLength(sql)).toBe(0);
    });
  });

  it("leaves out a message whose item was erased before its step", async () => {
    await withStorage((intake, storage) => {
      const sql = storage.sql;
      storeBatch(intake, caller, { items: [said("+15555550304", "Please call me about the invoice")] }, NOW, CONFIG);
      sql.exec("UPDATE items SET type = 'erased', kind = NULL, body = '{}'");
      expect(spaceSearch(storage, "invoice")).toEqual([]);
      expect(indexBacklogLength(sql)).toBe(0);
      expect(indexedMessages(sql)).toBe(0);
    });
  });
});

describe("the search.index timer", () => {
  const round = (saturated: boolean) => ({ stopwatch: () => performance.now(), mayCompile: () => false, saturated });
  const dueIndex = (sql: SqlStorage) =>
    sql.exec<{ due_at: number }>("SELECT due_at FROM timers WHERE kind = 'search.index'").toArray()[0]?.due_at;

  it("gives way to saturating writes while fewer than INDEX_BACKLOG_CAP wait, and indexes once they stop", async () => {
    await withStorage((intake, storage) => {
      const sql = storage.sql;
      storeBatch(intake, caller, { items: [said("+15555550305", "Is the sofa in stock?")] }, NOW, CONFIG);
      expect(dueIndex(sql)).toBe(NOW);

      runDueTimers(sql, NOW, round(true));
      expect(indexBacklogLength(sql)).toBe(1);
      expect(dueIndex(sql)).toBe(NOW + INDEX_YIELD_MS);

      runDueTimers(sql, NOW + INDEX_YIELD_MS, round(false));
      expect(indexBacklogLength(sql)).toBe(0);
      expect(indexedMessages(sql)).toBe(1);
      expect(dueIndex(sql)).toBeUndefined();
    });
  });

  it("no longer gives way once INDEX_BACKLOG_CAP messages wait", async () => {
    await withStorage((intake, storage) => {
      const sql = storage.sql;
      storeBatch(intake, caller, { items: [said("+15555550306", "Where is my parcel?")] }, NOW, CONFIG);
      const seq = sql.exec<{ seq: number }>("SELECT seq FROM search_backlog").one().seq;
      // Rows for items that do not exist stand for a long backlog: the step drops them as erased.
      sql.exec(
        `WITH RECURSIVE n(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM n WHERE value < ?2)
         INSERT INTO search_backlog (seq, profile_id) SELECT ?1 + value, 'p' FROM n`,
        seq,
        INDEX_BACKLOG_CAP - 1,
      );
      runDueTimers(sql, NOW, round(true));
      expect(indexedMessages(sql)).toBe(1);
      expect(indexBacklogLength(sql)).toBe(INDEX_BACKLOG_CAP - INDEX_STEP_ROWS);
      expect(dueIndex(sql)).toBe(NOW);
    });
  });

  it("indexes messages of a megabyte a few at a time, and makes no stems of a token of a megabyte", async () => {
    await withStorage((intake, storage) => {
      const sql = storage.sql;
      // Found by the batch's size properties: one step took every waiting message, and the turns
      // before each (whole tokens of 800 kB as near words) made a statement SQLite refused.
      const big = (minute: number) => said("+15555550309", `wardrobe ${"x".repeat(800_000)}`, minute);
      storeBatch(intake, caller, { items: [0, 1, 2].map(big) }, NOW, CONFIG);
      storeBatch(intake, caller, { items: [3, 4, 5].map(big) }, NOW, CONFIG);
      expect(indexBacklogLength(sql)).toBe(6);
      const perStep = Math.max(1, Math.floor(INDEX_STEP_BYTES / 800_000));
      runDueTimers(sql, NOW, { stopwatch: () => performance.now(), mayCompile: () => false });
      expect(indexedMessages(sql)).toBe(perStep);
      for (let step = 0; step < 6 && indexBacklogLength(sql) > 0; step++) {
        runDueTimers(sql, NOW, { stopwatch: () => performance.now(), mayCompile: () => false });
      }
      expect(indexBacklogLength(sql)).toBe(0);
      expect(indexedMessages(sql)).toBe(6);
      const widest = sql.exec<{ n: number }>("SELECT max(length(stems) + length(near)) AS n FROM search_stems").one().n;
      expect(widest).toBeLessThanOrEqual(3 * (MAX_TERM_CHARS + 1));
      expect(spaceSearch(storage, "wardrobes")).toHaveLength(6);
    });
  });
});

describe("search.index: a restart mid-backlog", () => {
  it("loses nothing and indexes each message once", async () => {
    // A stub per call: the one that aborted the object is broken with it.
    const id = env.SPACE.newUniqueId();
    const stub = () => env.SPACE.get(id);
    const total = INDEX_STEP_ROWS + 100;
    await runInDurableObject(stub(), (_instance, state) => {
      const intake = openIntake(drizzle(state.storage), state.storage.sql, implicitTransaction(state));
      const items = Array.from({ length: total }, (_, i) =>
        said(`+1555555${String(1000 + (i % 50))}`, `Order ${i} is late`, i % 60),
      );
      for (let i = 0; i < total; i += 300) storeBatch(intake, caller, { items: items.slice(i, i + 300) }, NOW, CONFIG);
      runDueTimers(state.storage.sql, NOW, { stopwatch: () => performance.now(), mayCompile: () => false });
      expect(indexBacklogLength(state.storage.sql)).toBe(total - INDEX_STEP_ROWS);
    });
    await runInDurableObject(stub(), (_instance, state) => state.abort("restart for the test")).catch(() => undefined);
    const indexed = await runInDurableObject(stub(), (_instance, state) => {
      const sql = state.storage.sql;
      // The rest is indexed by the step still due, whether the object's alarm ran it already or the test does.
      runDueTimers(sql, NOW + 1, { stopwatch: () => performance.now(), mayCompile: () => false });
      return {
        backlog: indexBacklogLength(sql),
        rows: sql
          .exec<{ n: number; refs: number }>(
            "SELECT count(*) AS n, count(DISTINCT ref_id) AS refs FROM search_index WHERE kind = 'message'",
          )
          .one(),
        found: spaceSearch(state.storage, String(total - 1)),
      };
    });
    expect(indexed).toEqual({ backlog: 0, rows: { n: total, refs: total }, found: [`Order **${total - 1}** is late`] });
  });
});
