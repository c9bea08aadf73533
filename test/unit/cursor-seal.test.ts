import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type CursorList, CursorSeal } from "../../src/http/cursor";
import { Problem } from "../../src/http/problem";
import { runs } from "../support/property-runs";

const LISTS: CursorList[] = ["search", "timeline", "suggestions", "people", "projects", "spaces", "sources", "audit"];
const seal = new CursorSeal(() => new Uint8Array(32).fill(7));
const otherKey = new CursorSeal(() => new Uint8Array(32).fill(8));

async function refused(work: Promise<unknown>, place: string): Promise<boolean> {
  try {
    await work;
    return false;
  } catch (error) {
    return error instanceof Problem && error.code === "invalid_input" && error.detail === `${place}: not_issued_by_this_service`;
  }
}

/** A cursor as the domain writes one: base64url text. */
const cursorArb = fc.string({
  unit: fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
  minLength: 1,
  maxLength: 120,
});

describe("CursorSeal: only cursors it sealed open", () => {
  it("opens what it sealed, for the same list, as it was", async () => {
    await fc.assert(
      fc.asyncProperty(cursorArb, fc.constantFrom(...LISTS), async (cursor, list) => {
        const sealed = await seal.seal(list, cursor);
        expect(await seal.open(list, sealed ?? undefined, "cursor")).toBe(cursor);
      }),
      { numRuns: runs(100) },
    );
    expect(await seal.seal("search", null)).toBeNull();
    expect(await seal.open("search", undefined, "cursor")).toBeUndefined();
  });

  it("refuses any one character changed, another list, another key, and text it never sealed", async () => {
    await fc.assert(
      fc.asyncProperty(
        cursorArb,
        fc.constantFrom(...LISTS),
        fc.nat(),
        fc.constantFrom(..."Aa0-_.x"),
        fc.string({ maxLength: 200 }),
        async (cursor, list, at, replacement, stranger) => {
          const sealed = (await seal.seal(list, cursor)) as string;
          const index = at % sealed.length;
          const changed = sealed.slice(0, index) + replacement + sealed.slice(index + 1);
          if (changed !== sealed) expect(await refused(seal.open(list, changed, "cursor"), "cursor")).toBe(true);
          const other = LISTS[(LISTS.indexOf(list) + 1) % LISTS.length] as CursorList;
          expect(await refused(seal.open(other, sealed, "query.cursor"), "query.cursor")).toBe(true);
          expect(await refused(otherKey.open(list, sealed, "cursor"), "cursor")).toBe(true);
          expect(await refused(seal.open(list, stranger, "cursor"), "cursor")).toBe(true);
        },
      ),
      { numRuns: runs(100) },
    );
  });
});
