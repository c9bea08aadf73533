import { describe, expect, it } from "vitest";
import { spaceVocabulary } from "../../src/space/memory/vocabulary";
import { withIntake } from "../support/intake";

/**
 * The summarizer's word frequencies (`vocabulary.ts`) are held per object and read again only once
 * the index has grown enough: by its own size while small, by the 2,000 rows read, and past 20,000
 * rows by a tenth of itself.
 */

/** Appends `count` rows of `stems` to `search_stems` after its last rowid. */
function addRows(sql: SqlStorage, count: number, stems: string): void {
  sql.exec(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
     INSERT INTO search_stems (rowid, stems, near, profile, source)
     SELECT (SELECT coalesce(max(rowid), 0) FROM search_stems) + i, ?, '', 'p', 's' FROM n`,
    count,
    stems,
  );
}

describe("the space's vocabulary", () => {
  it("is read again once the index has grown by its size while small, by 2,000 rows, then by a tenth", async () => {
    await withIntake((_intake, sql) => {
      addRows(sql, 50, "parcel");
      expect(spaceVocabulary(sql).documents).toBe(50);
      addRows(sql, 99, "zebra");
      expect(spaceVocabulary(sql).documentFrequency("zebra")).toBe(0); // held: grown by less than 100
      addRows(sql, 1, "zebra");
      expect(spaceVocabulary(sql).documentFrequency("zebra")).toBe(100);

      addRows(sql, 4_850, "parcel"); // 5,000 rows: from here, read again after 2,000 more
      expect(spaceVocabulary(sql).documentFrequency("zebra")).toBe(0);
      addRows(sql, 1_999, "zebra");
      expect(spaceVocabulary(sql).documentFrequency("zebra")).toBe(0);
      addRows(sql, 1, "zebra");
      expect(spaceVocabulary(sql).documentFrequency("zebra")).toBe(2_000);

      addRows(sql, 33_000, "parcel"); // 40,000 rows: read again after 4,000 more
      expect(spaceVocabulary(sql).documentFrequency("parcel")).toBe(2_000);
      addRows(sql, 3_999, "zebra");
      expect(spaceVocabulary(sql).documentFrequency("zebra")).toBe(0);
      addRows(sql, 1, "zebra");
      expect(spaceVocabulary(sql).documentFrequency("zebra")).toBe(2_000);
    });
  });
});
