import { describe, expect, it } from "vitest";
import { compileSlice } from "../../src/space/memory/compiler";
import { foldPlacements } from "../../src/space/memory/session-events";
import { TRACK_CALLER as caller, storeBatch, withIntake } from "../support/intake";
import { message } from "../support/seed";

/**
 * A session compiled again rewrites only what its compile changed (derivations.ts,
 * search/writes.ts `indexSession`): a late "thanks" leaves every derivation row and every
 * derived search row as it was; a restated fact replaces that fact's rows alone.
 */

const NOW = Date.UTC(2026, 10, 24, 12, 0, 0);
const CONFIG = { clock_tolerance_s: 300 };

const turn = (text: string, minute: number, role = "customer") =>
  message({
    conversation_id: "c1",
    speaker: { role },
    content: { type: "text", text },
    occurred_at: new Date(NOW - 3_600_000 + minute * 60_000).toISOString(),
  });

interface Rows extends Record<string, SqlStorageValue> {
  rowid: number;
  id: string;
}

/** Derivations and derived search rows (episode, facts), each as `rowid id`. */
function written(sql: SqlStorage) {
  const rows = (query: string) =>
    sql
      .exec<Rows>(query)
      .toArray()
      .map((row) => `${row.rowid} ${row.id}`)
      .sort();
  return {
    derivations: rows("SELECT rowid, id FROM derivations"),
    search: rows("SELECT rowid, ref_id AS id FROM search_index WHERE kind IN ('episode', 'fact')"),
  };
}

function compileAll(sql: SqlStorage, now: number): void {
  foldPlacements(sql);
  for (let i = 0; i < 10; i++) compileSlice(sql, now, () => 0);
}

describe("a session compiled again", () => {
  it("keeps the rows of what it derives as before, and replaces only what changed", async () => {
    await withIntake((intake, sql) => {
      storeBatch(
        intake,
        caller,
        {
          items: [
            turn("Hi, my postcode is 2040 and my sofa has not arrived.", 0),
            turn("Can you tell me when it will come?", 1),
            turn("It arrives on Thursday between 9 and 12.", 2, "human_agent"),
          ],
        },
        NOW,
        CONFIG,
      );
      compileAll(sql, NOW);
      const first = written(sql);
      expect(first.derivations.length).toBeGreaterThan(1);
      expect(first.search.length).toBeGreaterThan(1);

      storeBatch(intake, caller, { items: [turn("Thanks!", 3)] }, NOW + 1_000, CONFIG);
      compileAll(sql, NOW + 1_000);
      expect(written(sql)).toEqual(first);

      storeBatch(intake, caller, { items: [turn("Sorry, my postcode is 2041.", 4)] }, NOW + 2_000, CONFIG);
      compileAll(sql, NOW + 2_000);
      const third = written(sql);
      const kept = (rows: string[]) => rows.filter((row) => first.derivations.includes(row) || first.search.includes(row));
      expect(kept(third.derivations).length).toBeGreaterThan(0);
      expect(third.derivations.length).toBe(first.derivations.length + 1);
      expect(third.search.filter((row) => !first.search.includes(row)).length).toBeGreaterThanOrEqual(1);
      expect(kept(third.search).length).toBeGreaterThan(0);
    });
  });
});
