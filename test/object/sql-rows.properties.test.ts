import { env, runInDurableObject } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { rowsFromArrays } from "../../src/space/sql-rows";
import { runs } from "../support/property-runs";

/**
 * The space's SQL handle builds rows from the runtime's arrays (`sql-rows.ts`): whatever a query
 * returns and however it is read, the rows are the runtime's own.
 */

const valueArb: fc.Arbitrary<SqlStorageValue> = fc.oneof(
  fc.constant(null),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ unit: "binary" }),
  fc.uint8Array({ maxLength: 8 }).map((bytes) => bytes.slice().buffer as ArrayBuffer),
);

/** Column names of a select, repeats allowed (the last value wins in both). */
const namesArb = fc.array(fc.constantFrom("a", "b", "c", "profile_id", "é"), { minLength: 1, maxLength: 5 });

type Reading = "toArray" | "iterate" | "next then toArray" | "one" | "raw";

/** Blobs as byte lists, so that rows compare by content. */
const comparable = (rows: unknown): unknown =>
  JSON.parse(JSON.stringify(rows, (_key, value) => (value instanceof ArrayBuffer ? [...new Uint8Array(value)] : value)));

function read(cursor: SqlStorageCursor<Record<string, SqlStorageValue>>, reading: Reading): unknown {
  try {
    switch (reading) {
      case "toArray":
        return cursor.toArray();
      case "iterate":
        return [...cursor];
      case "next then toArray":
        return [cursor.next(), cursor.toArray(), cursor.next()];
      case "one":
        return cursor.one();
      case "raw":
        return [...cursor.raw()];
    }
  } catch (error) {
    return { threw: (error as Error).message };
  }
}

describe("rowsFromArrays", () => {
  it("reads every query's rows, names and counts as the runtime's cursor does", async () => {
    const stub = env.SPACE.get(env.SPACE.idFromName(`sql-rows-${crypto.randomUUID()}`));
    await runInDurableObject(stub, (_instance, state) => {
      const runtime = state.storage.sql;
      const adapted = rowsFromArrays(runtime);
      runtime.exec("CREATE TABLE probe (n INTEGER PRIMARY KEY, a, b, c)");
      fc.assert(
        fc.property(
          fc.array(fc.tuple(valueArb, valueArb, valueArb), { maxLength: 6 }),
          namesArb,
          fc.constantFrom<Reading>("toArray", "iterate", "next then toArray", "one", "raw"),
          (rows, names, reading) => {
            runtime.exec("DELETE FROM probe");
            const write = adapted.exec(
              "INSERT INTO probe (a, b, c) SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(?)",
              JSON.stringify(rows.map((row) => row.map((value) => (value instanceof ArrayBuffer ? null : value)))),
            );
            expect(write.rowsWritten).toBe(rows.length);
            for (const [index, row] of rows.entries()) {
              for (const [column, value] of row.entries()) {
                if (value instanceof ArrayBuffer)
                  runtime.exec(`UPDATE probe SET ${"abc"[column]} = ? WHERE n = ?`, value, index + 1);
              }
            }
            const select = `SELECT ${names.map((name, i) => `${"abc"[i % 3]} AS "${name}"`).join(", ")} FROM probe ORDER BY n`;
            const theirs = runtime.exec(select);
            const ours = adapted.exec(select);
            expect(comparable(read(ours, reading))).toEqual(comparable(read(theirs, reading)));
            expect(ours.columnNames).toEqual(theirs.columnNames);
            expect([ours.rowsRead, ours.rowsWritten]).toEqual([theirs.rowsRead, theirs.rowsWritten]);
          },
        ),
        { numRuns: runs(200) },
      );
      expect(adapted.databaseSize).toBe(runtime.databaseSize);
    });
  });
});
