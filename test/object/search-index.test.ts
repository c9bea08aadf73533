import { describe, expect, it } from "vitest";
import migrations from "../../migrations/space/migrations.js";
import { foldPlacements } from "../../src/space/memory/session-events";
import { catchUpIndex } from "../../src/space/search/backlog";
import { NEAR_STEMS, turnsAfter, wordsBefore } from "../../src/space/search/neighbours";
import { search } from "../../src/space/search/query";
import { REINDEX_SLICE_MS, REINDEX_STEP_ROWS, reindexSlice, stemsReady } from "../../src/space/search/reindex";
import { stemsOf } from "../../src/space/search/stems";
import { takeDueTimers } from "../../src/space/timers";
import { TRACK_CALLER as caller, storeBatch, withIntake } from "../support/intake";
import { message } from "../support/seed";

/**
 * What indexing a batch's messages writes to `search_stems` and `search_turns`, the turns around a message a search
 * finds there (`neighbours.ts`), and the reindex of rows indexed before `search_stems` existed (migration 0018,
 * `reindex.ts`), on the object's real SQLite.
 */

const NOW = Date.UTC(2026, 10, 24, 12, 0, 0);
const CONFIG = { clock_tolerance_s: 300 };

/** A turn of a conversation, `minute` minutes into the hour before NOW. */
const turn = (conversation: string, text: string, minute: number, overrides: Record<string, unknown> = {}) =>
  message({
    conversation_id: conversation,
    content: { type: "text", text },
    occurred_at: new Date(NOW - 3_600_000 + minute * 60_000).toISOString(),
    ...overrides,
  });

interface StemsRow extends Record<string, SqlStorageValue> {
  rowid: number;
  text: string;
  kind: string;
  ref_id: string;
  stems: string;
  near: string;
  profile: string;
  source: string;
}

function stemsRows(sql: SqlStorage): StemsRow[] {
  return sql
    .exec<StemsRow>(
      `SELECT s.rowid, i.text, i.kind, i.ref_id, s.stems, s.near, s.profile, s.source
       FROM search_stems s JOIN search_index i ON i.rowid = s.rowid ORDER BY s.rowid`,
    )
    .toArray();
}

/** A batch stored, then indexed as the `search.index` timer would before anything else ran. */
function storeIndexed(...args: Parameters<typeof storeBatch>): ReturnType<typeof storeBatch> {
  const stored = storeBatch(...args);
  catchUpIndex(args[0].sql, null);
  return stored;
}

/** Each row's near words as a search finds them (`wordsBefore`), by its kind and text; none is stored. */
function nearOf(sql: SqlStorage): Record<string, string> {
  const rows = stemsRows(sql);
  expect(rows.map((row) => row.near)).toEqual(rows.map(() => ""));
  const near = wordsBefore(
    sql,
    rows.map((row) => row.ref_id),
  );
  return Object.fromEntries(rows.map((row) => [`${row.kind} ${row.text}`, (near.get(row.ref_id) ?? []).join(" ")]));
}

/** Each row's turns after it as a search finds them (`turnsAfter`), by its text: the texts of their rows. */
function afterOf(sql: SqlStorage): Record<string, string[]> {
  const rows = stemsRows(sql);
  const textOf = new Map(rows.map((row) => [row.rowid, row]));
  return Object.fromEntries(
    rows.map((row) => [
      row.text,
      turnsAfter(sql, [row.ref_id]).flatMap(({ row: rowid, itemId }) => {
        const found = textOf.get(rowid);
        return found && found.ref_id === itemId ? [found.text] : [];
      }),
    ]),
  );
}

describe("search_turns: the words of the turns before a message, and the turns after it", () => {
  it("gives a message the stems of the two turns before it in its session, across batches, folded or not", async () => {
    const near = await withIntake((intake, sql) => {
      storeIndexed(
        intake,
        caller,
        {
          items: [
            turn("c1", "Where is my sofa? It was due Monday.", 0),
            turn("c2", "My kettle leaks", 1, { handles: [{ type: "phone_e164", value: "+15555550177" }] }),
            turn("c1", "Let me check that for you.", 2, { speaker: { role: "ai_agent" } }),
          ],
        },
        NOW,
        CONFIG,
      );
      storeIndexed(
        intake,
        caller,
        { items: [turn("c1", "It arrives on Thursday.", 3, { speaker: { role: "ai_agent" } })] },
        NOW,
        CONFIG,
      );
      foldPlacements(sql);
      storeIndexed(
        intake,
        caller,
        {
          items: [
            turn("c1", "", 4, { channel: "voice", content: { type: "audio", transcript: "caller says thanks a lot" } }),
            turn("c1", "Great, thanks!", 5),
          ],
        },
        NOW,
        CONFIG,
      );
      return nearOf(sql);
    });
    expect(near).toEqual({
      "message Where is my sofa? It was due Monday.": "",
      "message My kettle leaks": "",
      "message Let me check that for you.": stemsOf("Where is my sofa? It was due Monday.").join(" "),
      // The nearest turn's stems first.
      "message It arrives on Thursday.": "let check sofa due monday",
      // A call of the same conversation is a turn of its session too, by its transcript.
      "transcript caller says thanks a lot": "arriv thursday let check",
      "message Great, thanks!": "caller say thank lot arriv thursday",
    });
  });

  it("gives a message at most NEAR_STEMS distinct stems of the turns before it, the nearest turn's first", async () => {
    const words = Array.from({ length: 40 }, (_, i) => `word${i}`);
    const near = await withIntake((intake, sql) => {
      storeIndexed(
        intake,
        caller,
        { items: [turn("c1", `${words.join(" ")} word0 word1`, 0), turn("c1", "parcel parcel late", 1), turn("c1", "ok", 2)] },
        NOW,
        CONFIG,
      );
      return nearOf(sql);
    });
    expect(near["message parcel parcel late"]).toBe(words.slice(0, NEAR_STEMS).join(" "));
    expect(near["message ok"]).toBe(["parcel", "late", ...words.slice(0, NEAR_STEMS - 2)].join(" "));
  });

  it("gives a turn that arrives after a later one its place in time, and leaves function words out", async () => {
    const near = await withIntake((intake, sql) => {
      storeIndexed(intake, caller, { items: [turn("c1", "The sofa is blue", 0), turn("c1", "And the chair?", 10)] }, NOW, CONFIG);
      storeIndexed(intake, caller, { items: [turn("c1", "Is it in stock?", 5)] }, NOW, CONFIG);
      return nearOf(sql);
    });
    expect(near).toEqual({
      "message The sofa is blue": "",
      // Found when a search asks: the late turn is before it now.
      "message And the chair?": "stock sofa blue",
      "message Is it in stock?": "sofa blue",
    });
  });

  it("finds the rows of the two turns after a message in its session, both rows of a call, folded or not", async () => {
    const after = await withIntake((intake, sql) => {
      storeIndexed(
        intake,
        caller,
        {
          items: [
            turn("c1", "Where is my sofa?", 0),
            turn("c2", "My kettle leaks", 1, { handles: [{ type: "phone_e164", value: "+15555550177" }] }),
            turn("c1", "Let me check.", 2, { speaker: { role: "ai_agent" } }),
          ],
        },
        NOW,
        CONFIG,
      );
      foldPlacements(sql);
      storeIndexed(
        intake,
        caller,
        {
          items: [
            turn("c1", "It arrives Thursday.", 3, {
              channel: "voice",
              content: { type: "audio", text: "It arrives Thursday.", transcript: "it arrives on thursday" },
            }),
            turn("c1", "Thanks!", 6),
            turn("c1", "Anything else?", 4, { speaker: { role: "ai_agent" } }),
          ],
        },
        NOW,
        CONFIG,
      );
      return afterOf(sql);
    });
    expect(after).toEqual({
      "Where is my sofa?": ["Let me check.", "It arrives Thursday.", "it arrives on thursday"],
      "My kettle leaks": [],
      "Let me check.": ["It arrives Thursday.", "it arrives on thursday", "Anything else?"],
      "It arrives Thursday.": ["Anything else?", "Thanks!"],
      "it arrives on thursday": ["Anything else?", "Thanks!"],
      "Anything else?": ["Thanks!"],
      "Thanks!": [],
    });
  });
});

describe("the reindex of rows indexed before search_stems (migration 0018)", () => {
  it("stems every older row in slices, as batches would have, and plain search ranks by stems once it is done", async () => {
    await withIntake((intake, sql) => {
      const items = Array.from({ length: 60 }, (_, i) =>
        turn(`c${i % 7}`, i % 10 === 0 ? `We moved the parcel ${i} to the depot` : `Thanks for waiting ${i}`, i),
      );
      for (let i = 0; i < items.length; i += 25) storeIndexed(intake, caller, { items: items.slice(i, i + 25) }, NOW, CONFIG);
      const written = stemsRows(sql);
      expect(written.length).toBe(60);

      // The space as it stood before migration 0018, with its rows in search_index only; then the migration itself.
      sql.exec("DROP TABLE search_stems");
      sql.exec("DROP TABLE search_reindex");
      sql.exec("DELETE FROM search_turns");
      for (const statement of migrations.migrations.m0018.split("--> statement-breakpoint")) sql.exec(statement);
      expect(stemsReady(sql)).toBe(false);
      expect(takeDueTimers(sql, NOW).map((timer) => timer.kind)).toEqual(["search.reindex"]);

      const ask = (query: string) =>
        search(sql, { query, mode: "plain", limit: 20, cursorPlace: "cursor", members: null, sources: null }, new Map()).results;
      // Until it is done, plain search goes word for word: "moving" is not "moved".
      expect(ask("moving parcel").every((result) => !result.snippet.includes("**moved**"))).toBe(true);
      // A batch meanwhile indexes its rows in both tables, past the rows the reindex stems.
      storeIndexed(intake, caller, { items: [turn("c1", "The sofa arrives on Friday", 70)] }, NOW, CONFIG);

      // Every reading of the clock is a whole slice later: a slice takes one step.
      let clock = 0;
      const stopwatch = () => (clock += REINDEX_SLICE_MS);
      let slices = 0;
      while (!stemsReady(sql)) {
        reindexSlice(sql, NOW, stopwatch);
        slices++;
        const due = takeDueTimers(sql, NOW);
        expect(due.map((timer) => timer.kind)).toEqual(stemsReady(sql) ? [] : ["search.reindex"]);
      }
      expect(slices).toBe(Math.ceil(60 / REINDEX_STEP_ROWS));
      const stemmed = stemsRows(sql);
      expect(stemmed.slice(0, 60)).toEqual(written);
      expect(stemmed.slice(60).map((row) => [row.text, row.stems])).toEqual([
        ["The sofa arrives on Friday", "sofa arriv friday"],
      ]);
      expect(ask("moving parcel").filter((result) => result.snippet.includes("**moved**"))).toHaveLength(6);
    });
  });

  it("finishes at once on a space with nothing indexed, and never stems a row twice", async () => {
    await withIntake((intake, sql) => {
      expect(stemsReady(sql)).toBe(true);
      storeIndexed(intake, caller, { items: [turn("c1", "first words", 0)] }, NOW, CONFIG);
      sql.exec("INSERT INTO search_reindex (id, next_rowid, last_rowid) VALUES (1, 1, 1)");
      reindexSlice(sql, NOW, () => 0);
      expect(stemsReady(sql)).toBe(true);
      expect(stemsRows(sql).map((row) => row.stems)).toEqual(["first word"]);
    });
  });
});

describe("search_turns: each turn's stems by seq (migration 0022) and its first row (0037)", () => {
  it("is filled from the index for turns indexed before it, and later messages find their words", async () => {
    const near = await withIntake((intake, sql) => {
      storeIndexed(
        intake,
        caller,
        {
          items: [
            turn("c1", "Where is my sofa?", 0),
            turn("c1", "Checking the warehouse now", 1, { speaker: { role: "ai_agent" } }),
            turn("c2", "Kettle leaking", 2, { handles: [{ type: "phone_e164", value: "+15555550177" }] }),
          ],
        },
        NOW,
        CONFIG,
      );
      foldPlacements(sql);
      const written = sql.exec("SELECT seq, stems, row FROM search_turns ORDER BY seq").toArray();
      expect(written.map((row) => row.stems)).toEqual(["sofa", "check warehous now", "kettl leak"]);
      expect(written.map((row) => row.row)).toEqual(stemsRows(sql).map((row) => row.rowid));

      // The space as it stood before migration 0022; then the migration itself, and 0037's rows.
      sql.exec("DROP TABLE search_turns");
      sql.exec("CREATE TABLE search_state (id integer PRIMARY KEY NOT NULL, indexed_seq integer NOT NULL)");
      for (const statement of migrations.migrations.m0022.split("--> statement-breakpoint")) sql.exec(statement);
      expect(sql.exec("SELECT seq, stems FROM search_turns ORDER BY seq").toArray()).toEqual(
        written.map(({ seq, stems }) => ({ seq, stems })),
      );
      expect(sql.exec("SELECT name FROM sqlite_master WHERE name = 'search_state'").toArray()).toEqual([]);
      for (const statement of migrations.migrations.m0037.split("--> statement-breakpoint")) sql.exec(statement);
      expect(sql.exec("SELECT seq, stems, row FROM search_turns ORDER BY seq").toArray()).toEqual(written);

      storeIndexed(intake, caller, { items: [turn("c1", "Found it", 3)] }, NOW, CONFIG);
      return nearOf(sql);
    });
    expect(near["message Found it"]).toBe("check warehous now sofa");
  });
});
