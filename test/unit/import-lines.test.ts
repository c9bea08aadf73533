import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Line, LineReader } from "../../src/space/imports/lines";
import { cut } from "../support/imports";
import { runs } from "../support/property-runs";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function readAll(reader: LineReader, pieces: readonly Uint8Array[]): Line[] {
  return [...pieces.flatMap((piece) => reader.push(piece)), ...reader.finish()];
}

const shown = (lines: readonly Line[]) =>
  lines.map((line) => (line.kind === "line" ? [decoder.decode(line.bytes), line.end] : ["too_large", line.end]));

describe("NDJSON lines over the limit (docs/api/imports.md: a record over 2.5 MB is too_large and reading goes on)", () => {
  it("reports a line over the limit as too_large with the offset after it, and reads the lines around it whole", () => {
    const reader = new LineReader(0, 8);
    const lines = readAll(reader, [encoder.encode("short\n0123456789abc\nnext\n")]);
    expect(shown(lines)).toEqual([
      ["short", 6],
      ["too_large", 20],
      ["next", 25],
    ]);
  });

  it("takes a line of exactly the limit, and one byte more is too_large", () => {
    expect(shown(readAll(new LineReader(0, 4), [encoder.encode("abcd\nabcde\n")]))).toEqual([
      ["abcd", 5],
      ["too_large", 11],
    ]);
  });

  it("reports a last line over the limit without a line break at the file's end", () => {
    expect(shown(readAll(new LineReader(0, 3), [encoder.encode("ok\ntoo long")]))).toEqual([
      ["ok", 3],
      ["too_large", 11],
    ]);
  });

  it("reports a line over the limit that spans a thousand chunks too_large once, and reads the next line on its own", () => {
    const reader = new LineReader(0, 10);
    const piece = encoder.encode("x".repeat(1_000));
    for (let chunk = 0; chunk < 1_000; chunk++) expect(reader.push(piece)).toEqual([]);
    expect(shown(reader.push(encoder.encode("\nafter\n")))).toEqual([
      ["too_large", 1_000_001],
      ["after", 1_000_007],
    ]);
    expect(reader.finish()).toEqual([]);
  });

  it("numbers offsets from where a resumed reading starts, past a line over the limit", () => {
    expect(shown(readAll(new LineReader(500, 2), [encoder.encode("abc\nde\n")]))).toEqual([
      ["too_large", 504],
      ["de", 507],
    ]);
  });

  it("reads any mix of lines under and over the limit, cut anywhere, as exactly those lines", () => {
    const limit = 12;
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: fc.constantFrom("a", "{", "é", " "), maxLength: 30 }), { maxLength: 10 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.nat({ max: 1_000 }),
        (texts, places, start) => {
          const bytes = encoder.encode(texts.map((text) => `${text}\n`).join(""));
          // A start past 0 is a resumed reading: no BOM to skip, offsets from there.
          const lines = readAll(new LineReader(start + 1, limit), cut(bytes, places));
          let end = start + 1;
          const expected = texts.map((text) => {
            end += encoder.encode(text).length + 1;
            return encoder.encode(text).length > limit ? ["too_large", end] : [text, end];
          });
          expect(shown(lines)).toEqual(expected);
        },
      ),
      { numRuns: runs(300) },
    );
  });
});
