import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/space/privacy/canonical-json";
import { runs } from "../support/property-runs";

/** RFC 8785 (JCS): what an erasure receipt's signature is computed over. */
describe("canonical JSON (RFC 8785)", () => {
  it("writes the RFC's own examples as the RFC does", () => {
    // RFC 8785 §3.2.2 (literals, numbers, strings) and §3.2.3 (sorting by UTF-16 code units).
    expect(
      canonicalJson({
        numbers: [Number("333333333.33333329"), 1e30, 4.5, 2e-3, 0.000000000000000000000000001],
        string: "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"/",
        literals: [null, true, false],
      }),
    ).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
    const sorted = canonicalJson({
      "\u20ac": "Euro Sign",
      "\r": "Carriage Return",
      "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\ud83d\ude00": "Emoji: Grinning Face",
      "\u0080": "Control",
      "\u00f6": "Latin Small Letter O With Diaeresis",
    });
    const values = [
      "Carriage Return",
      "One",
      "Control",
      "Latin Small Letter O With Diaeresis",
      "Euro Sign",
      "Emoji: Grinning Face",
    ];
    const places = [...values, "Hebrew Letter Dalet With Dagesh"].map((value) => sorted.indexOf(value));
    expect(places).toEqual([...places].sort((a, b) => a - b));
    expect(canonicalJson(-0)).toBe("0");
    expect(canonicalJson({ a: undefined, b: [undefined] })).toBe('{"b":[null]}');
    expect(() => canonicalJson(Number.NaN)).toThrow(TypeError);
    expect(() => canonicalJson({ a: Number.POSITIVE_INFINITY })).toThrow(TypeError);
  });

  it("properties: reads back as the same value, is the same whatever the members' order, is its own canonical form, sorts members and has no whitespace between tokens", () => {
    const json = fc.jsonValue({ maxDepth: 4, noUnicodeString: false });
    fc.assert(
      fc.property(json, fc.integer(), (value, seed) => {
        const text = canonicalJson(value);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
        expect(canonicalJson(shuffled(value, seed))).toBe(text);
        expect(canonicalJson(JSON.parse(text))).toBe(text);
        expect(text).toBe(reference(value));
      }),
      { numRuns: runs(150) },
    );
  });
});

/** The same value with every object's members in another order. */
function shuffled(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((entry) => shuffled(entry, seed));
  if (value === null || typeof value !== "object") return value;
  const entries = Object.entries(value);
  const order = entries.map((entry, index) => ({ entry, key: Math.sin(seed + index * 7919) }));
  order.sort((a, b) => a.key - b.key);
  return Object.fromEntries(order.map(({ entry: [name, member] }) => [name, shuffled(member, seed + 1)]));
}

/** A second writing of the rule, for comparison: sorted members by code units, JSON.stringify for the rest. */
function reference(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(reference).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const names = Object.keys(value).sort((a, b) => {
      for (let i = 0; i < Math.min(a.length, b.length); i++) {
        const d = a.charCodeAt(i) - b.charCodeAt(i);
        if (d !== 0) return d;
      }
      return a.length - b.length;
    });
    return `{${names.map((name) => `${JSON.stringify(name)}:${reference((value as Record<string, unknown>)[name])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
