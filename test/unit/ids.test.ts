import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { uuidv7 } from "../../src/ids";

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("uuidv7", () => {
  it("is a version 7 UUID whose first 48 bits are the time, for any time", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 48 - 1 }), (ms) => {
        const id = uuidv7(ms);
        expect(id).toMatch(UUID_V7);
        expect(Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(ms);
      }),
    );
  });

  it("never repeats, across many refills of its random pool", () => {
    const ids = new Set(Array.from({ length: 5_000 }, () => uuidv7(1_700_000_000_000)));
    expect(ids.size).toBe(5_000);
  });
});
