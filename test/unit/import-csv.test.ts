import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CsvReader, type CsvRecord } from "../../src/space/imports/csv";
import { derivedKey } from "../../src/space/imports/csv-rows";
import { type FileEntry, fileEntries } from "../../src/space/imports/file-records";
import { FileRefusal } from "../../src/space/imports/file-refusal";
import { LineReader } from "../../src/space/imports/lines";
import { cut } from "../support/imports";
import { runs } from "../support/property-runs";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** An RFC 4180 writer, as standard libraries write: a field is quoted when it holds a comma, a quote or a line break (quotes doubled); a record of one empty field is `""`. */
function writeCsv(rows: readonly (readonly string[])[], eol: "\r\n" | "\n", trailing: boolean): string {
  const field = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);
  const lines = rows.map((row) => (row.length === 1 && row[0] === "" ? '""' : row.map(field).join(",")));
  return lines.join(eol) + (trailing ? eol : "");
}

function readAll(pieces: readonly Uint8Array[], start = 0, max = 1_000_000): CsvRecord[] {
  const reader = new CsvReader(start, max);
  return [...pieces.flatMap((piece) => reader.push(piece)), ...reader.finish()];
}

const fieldsOf = (records: readonly CsvRecord[]) =>
  records.map((record) => (record.kind === "fields" ? record.fields.map((field) => decoder.decode(field)) : record.kind));

/** Any text, with the characters CSV cares about much more often than chance would give them. */
const cell = fc.oneof(
  fc.string({ unit: fc.constantFrom(",", '"', "\r", "\n", "a", " ", "é", "😀", "b"), maxLength: 8 }),
  fc.string({ unit: "grapheme", maxLength: 12 }),
);
const table = fc
  .integer({ min: 1, max: 5 })
  .chain((width) => fc.array(fc.array(cell, { minLength: width, maxLength: width }), { minLength: 1, maxLength: 12 }));

describe("CSV reader (RFC 4180, streaming)", () => {
  it("reads back exactly any table a standard writer wrote, however the bytes are cut, with the offset after each record", () => {
    fc.assert(
      fc.property(
        table,
        fc.constantFrom<"\r\n" | "\n">("\r\n", "\n"),
        fc.boolean(),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 6 }),
        (rows, eol, trailing, bom, places) => {
          const text = writeCsv(rows, eol, trailing);
          const bytes = encoder.encode((bom ? "\ufeff" : "") + text);
          const records = readAll(cut(bytes, places));
          expect(fieldsOf(records)).toEqual(rows);
          // Each record ends where the next starts: reading from there gives the rest.
          const last = records[records.length - 1];
          expect(last?.end).toBe(bytes.length);
          for (const [index, record] of records.entries()) {
            const rest = readAll([bytes.subarray(record.end)], record.end);
            expect(fieldsOf(rest)).toEqual(rows.slice(index + 1));
          }
        },
      ),
      { numRuns: runs(300) },
    );
  });

  it("reads quoted commas, quotes, CRLF and LF inside fields, a BOM, and a last record without a line break", () => {
    const text = '\ufeffphone_e164,note\r\n"+1 555 555 0100","a, ""b""\r\nc"\r\n+15555550101,plain';
    expect(fieldsOf(readAll([encoder.encode(text)]))).toEqual([
      ["phone_e164", "note"],
      ["+1 555 555 0100", 'a, "b"\r\nc'],
      ["+15555550101", "plain"],
    ]);
  });

  it("reads an empty line as one empty field, and a lone CR as a line break", () => {
    expect(fieldsOf(readAll([encoder.encode("a,b\n\nc,d\re,f")]))).toEqual([["a", "b"], [""], ["c", "d"], ["e", "f"]]);
  });

  it("marks a quote where RFC 4180 allows none, and an unterminated quote, and reads on to the next record", () => {
    const records = readAll([encoder.encode('a"b,c\n"x"y,z\nok,1\n"open,2')]);
    expect(records.map((record) => (record.kind === "malformed" ? record.rule : record.kind))).toEqual([
      "quote_in_unquoted_field",
      "text_after_closing_quote",
      "fields",
      "unterminated_quoted_field",
    ]);
  });

  it("reports a record over the limit without holding it, and goes on", () => {
    const records = readAll([encoder.encode(`${"x".repeat(50)},y\nshort,1\n`)], 0, 20);
    expect(records.map((record) => record.kind)).toEqual(["too_large", "fields"]);
  });

  it("refuses a binary file (a NUL byte)", () => {
    expect(() => readAll([new Uint8Array([0x61, 0x00, 0x62])])).toThrow(FileRefusal);
  });
});

describe("NDJSON lines", () => {
  it("splits LF and CRLF lines cut anywhere, with the offset after each, skipping a BOM", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: fc.constantFrom("a", "{", "é", "😀", " ", "\r"), maxLength: 10 }), { maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 5 }),
        (lines, places) => {
          const clean = lines.map((line) => line.replaceAll("\r", ""));
          const bytes = encoder.encode(`\ufeff${clean.map((line) => `${line}\r\n`).join("")}`);
          const reader = new LineReader(0, 1000);
          const read = [...cut(bytes, places).flatMap((piece) => reader.push(piece)), ...reader.finish()];
          expect(read.map((line) => (line.kind === "line" ? decoder.decode(line.bytes) : "?"))).toEqual(clean);
          expect(read[read.length - 1]?.end ?? 3).toBe(bytes.length);
        },
      ),
      { numRuns: runs(200) },
    );
  });
});

function streamOf(text: string | Uint8Array): ReadableStream<Uint8Array> {
  const bytes = typeof text === "string" ? encoder.encode(text) : text;
  return new ReadableStream({
    start(controller) {
      for (let at = 0; at < bytes.length; at += 7) controller.enqueue(bytes.slice(at, at + 7));
      controller.close();
    },
  });
}

async function entriesOf(text: string | Uint8Array, format: "csv" | "ndjson" = "csv"): Promise<FileEntry[]> {
  const out: FileEntry[] = [];
  const start = { format, fileSha256: "f".repeat(64), offset: { byte: 0, record: 0 }, layout: null } as const;
  for await (const entry of fileEntries(streamOf(text), start)) out.push(entry);
  return out;
}

const itemsOf = (entries: readonly FileEntry[]) =>
  entries.map((entry) => ("text" in entry ? JSON.parse(entry.text) : "error" in entry ? entry.error : "blank"));

describe("CSV import: each record one identify item (SPEC POST /v1/ingest/files)", () => {
  it("makes any table of handle values, written by a standard writer, into exactly those identify items", async () => {
    const value = fc.string({ unit: fc.constantFrom("a", "1", ",", '"', "\n", " ", "é", "-"), minLength: 1, maxLength: 8 });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(value, fc.option(value, { nil: "" }), value, fc.option(value, { nil: "" })), {
          minLength: 1,
          maxLength: 8,
        }),
        fc.boolean(),
        async (rows, crlf) => {
          const header = ["system_id", "system_id_2", "system_id_scope", "idempotency_key"];
          const cells = rows.map(([first, second, scope], index) => [first, second, scope, `key-${index}`]);
          const text = writeCsv([header, ...cells], crlf ? "\r\n" : "\n", true);
          const expected = rows.map(([first, second, scope], index) => ({
            type: "identify",
            idempotency_key: `key-${index}`,
            handles: [first, second]
              .filter((handle) => handle.trim() !== "")
              .map((handle) => ({ type: "system_id", value: handle, scope })),
            method: "system_import",
          }));
          expect(itemsOf(await entriesOf(text))).toEqual(expected);
        },
      ),
      { numRuns: runs(100) },
    );
  });

  it("reads every header form: handle types, <type>_2 to _9, <type>_scope, idempotency_key, occurred_at, subject_kind", async () => {
    const text = [
      "email,phone_e164,phone_e164_2,phone_e164_9,crm_id,crm_id_scope,subject_kind,occurred_at,idempotency_key",
      "a@example.com,+15555550100,,+15555550102,C-1,eu,account,2026-01-02T03:04:05Z,",
    ].join("\n");
    const [item] = itemsOf(await entriesOf(text));
    expect(item).toEqual({
      type: "identify",
      idempotency_key: await derivedKey("f".repeat(64), [
        "a@example.com",
        "+15555550100",
        "",
        "+15555550102",
        "C-1",
        "eu",
        "account",
        "2026-01-02T03:04:05Z",
        "",
      ]),
      handles: [
        { type: "email", value: "a@example.com" },
        { type: "phone_e164", value: "+15555550100" },
        { type: "phone_e164", value: "+15555550102" },
        { type: "crm_id", value: "C-1", scope: "eu" },
      ],
      method: "system_import",
      subject_kind: "account",
      occurred_at: "2026-01-02T03:04:05Z",
    });
  });

  it("derives the same key for the same record of the same file, another for another file or another record", async () => {
    const sha = "a".repeat(64);
    expect(await derivedKey(sha, ["x", "y"])).toBe(await derivedKey(sha, ["x", "y"]));
    expect(await derivedKey(sha, ["x", "y"])).not.toBe(await derivedKey("b".repeat(64), ["x", "y"]));
    expect(await derivedKey(sha, ["x", "y"])).not.toBe(await derivedKey(sha, ["x,y"]));
  });

  it("numbers records from 1 after the header, skips empty records, and rejects a record of the wrong width by row", async () => {
    const entries = await entriesOf("email,crm_id\na@example.com,1\n\n,\nb@example.com\n");
    expect(
      entries.map((entry) => [entry.row, "text" in entry ? "item" : "error" in entry ? entry.error.detail : "blank"]),
    ).toEqual([
      [1, "item"],
      [2, "blank"],
      [3, "blank"],
      [4, "csv: the record has 1 fields; the header has 2"],
    ]);
  });

  it("refuses a file without a handle column, with an unknown column, or not UTF-8, naming no value", async () => {
    const refusal = async (text: string | Uint8Array) => {
      try {
        await entriesOf(text);
      } catch (error) {
        if (error instanceof FileRefusal) return error.reason;
        throw error;
      }
      return null;
    };
    expect(await refusal("idempotency_key,occurred_at\nk,2026-01-01T00:00:00Z\n")).toBe("header: no handle column");
    expect(await refusal("email,First Name\na@example.com,Zelda\n")).toMatch(/^header: column 2 is not a handle type/);
    expect(await refusal("email,email\n")).toBe("header: column 2 repeats an earlier column");
    expect(await refusal("email_scope\nx\n")).toMatch(/scope of a handle type with no column/);
    const broken = new Uint8Array([...encoder.encode("email,crm_id\na@example.com,"), 0xc3, 0x28, 0x0a]);
    expect(await refusal(broken)).toBe("not_utf8: record 1 is not UTF-8");
    expect(await refusal(new Uint8Array([0x65, 0x6d, 0x61, 0x69, 0x6c, 0, 0x0a]))).toMatch(/^binary/);
    // A PNG: its signature's first line is no UTF-8, which is found first.
    expect(await refusal(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]))).toMatch(/^not_utf8/);
  });
});
