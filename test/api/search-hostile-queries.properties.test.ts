import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SearchPageSchema } from "../../src/contract/search";
import { phone } from "../support/identity";
import { frozenSpace, says, search, searchResponse } from "../support/search";
import { batch, json } from "../support/seed";

/**
 * Search (README "Search") with hostile queries: any text in the default mode is searched, and
 * in mode fts5 it is either searched or refused as syntax; never a 5xx. A file of its own: its
 * 300 searches take as long as the rest of search.test.ts.
 */

const ALICE = phone("+15555550101");

describe("POST /v1/search: hostile queries", () => {
  it("never answers plain text with a 5xx or a 422, whatever it holds, nor fts5 syntax with a 5xx", async () => {
    const space = await frozenSpace();
    await json(await batch(space, [says(ALICE, 'the "quoted" (refund) AND/OR NEAR stuff: col* ^caret -minus')]), 200);
    const hostile = fc.oneof(
      fc.string({ minLength: 1, maxLength: 200, unit: "binary" }),
      fc
        .array(
          fc.constantFrom(
            '"',
            "(",
            ")",
            "*",
            "^",
            ":",
            "-",
            "+",
            "AND",
            "OR",
            "NOT",
            "NEAR",
            "{",
            "}",
            "refund",
            " ",
            "é",
            "\u0301",
            "ß",
            "İ",
            "🙂",
            "\u0000",
          ),
          { minLength: 1, maxLength: 30 },
        )
        .map((parts) => parts.join("")),
    );
    await fc.assert(
      fc.asyncProperty(hostile, fc.boolean(), async (query, restricted) => {
        const response = await searchResponse(space, { query, ...(restricted ? { handle: ALICE } : {}) });
        const text = await response.text();
        expect(response.status, `${JSON.stringify(query)}: ${text}`).toBe(200);
        SearchPageSchema.parse(JSON.parse(text));
      }),
      { numRuns: 150 },
    );
    // In mode fts5 the same text is either searched or refused as syntax: never a 5xx.
    await fc.assert(
      fc.asyncProperty(hostile, async (query) => {
        const response = await searchResponse(space, { query, mode: "fts5", handle: ALICE });
        const text = await response.text();
        expect([200, 422], `${JSON.stringify(query)}: ${text}`).toContain(response.status);
        if (response.status === 422) expect(JSON.parse(text).detail).toBe("query: fts5_syntax_error");
        else SearchPageSchema.parse(JSON.parse(text));
      }),
      { numRuns: 150 },
    );
    const found = await search(space, { query: '"refund" AND (NEAR' });
    expect(found.results.filter((result) => result.kind === "message")).toHaveLength(1);
    // 300 searches: about 15 s alone, and more while the rest of the suite shares the machine.
  }, 90_000);
});
