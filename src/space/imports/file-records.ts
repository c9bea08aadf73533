import { MAX_BATCH_BYTES } from "../../contract/batch";
import type { ImportFormat } from "../../contract/imports";
import type { ImportRecord } from "./chunks";
import { CsvReader, type CsvRecord } from "./csv";
import { type CsvLayout, csvLayout, identifyItem } from "./csv-rows";
import { FileRefusal, utf8 } from "./file-refusal";
import { LineReader } from "./lines";
import type { ImportOffset } from "./records";

/** A record longer than a whole batch cannot be an item (`too_large`), and is never held. */
export const MAX_RECORD_BYTES = MAX_BATCH_BYTES;

const TOO_LARGE = { code: "too_large", detail: `record is larger than ${MAX_RECORD_BYTES} bytes` } as const;

/** What a file yields, in order: records, and blank lines or empty CSV records (numbered, not records). */
export type FileEntry = ImportRecord | { row: number; end: number; blank: true };

export interface FileStart {
  format: ImportFormat;
  fileSha256: string;
  /** Where to start: 0 with no record read, else an offset a chunk was committed at. */
  offset: ImportOffset;
  /** A CSV's header, read before when the reading starts after it. */
  layout: CsvLayout | null;
}

/**
 * The entries of a file read from `start.offset` on: an NDJSON line as its text, a CSV record as
 * the identify item it makes (the header read first when reading from the start). A file that
 * is not what it claims throws `FileRefusal`.
 */
export async function* fileEntries(body: ReadableStream<Uint8Array>, start: FileStart): AsyncGenerator<FileEntry, void, void> {
  let row = start.offset.record;
  if (start.format === "ndjson") {
    const lines = new LineReader(start.offset.byte, MAX_RECORD_BYTES);
    for await (const batch of chunksOf(
      body,
      (chunk) => lines.push(chunk),
      () => lines.finish(),
    )) {
      for (const line of batch) {
        row++;
        if (line.kind === "too_large") {
          yield { row, end: line.end, error: TOO_LARGE };
          continue;
        }
        const text = utf8(line.bytes, row);
        yield text.trim() === "" ? { row, end: line.end, blank: true } : { row, end: line.end, text };
      }
    }
    return;
  }
  const reader = new CsvReader(start.offset.byte, MAX_RECORD_BYTES);
  let layout = start.layout;
  for await (const batch of chunksOf(
    body,
    (chunk) => reader.push(chunk),
    () => reader.finish(),
  )) {
    for (const record of batch) {
      if (layout === null) {
        layout = csvLayout(headerOf(record));
        continue;
      }
      row++;
      yield await csvEntry(layout, record, row, start.fileSha256);
    }
  }
  if (layout === null) throw new FileRefusal("header: the file is empty");
}

/** A CSV's header alone, read from the start of its file (a reading that resumes needs it). */
export async function readCsvLayout(body: ReadableStream<Uint8Array>): Promise<CsvLayout> {
  const reader = new CsvReader(0, MAX_RECORD_BYTES);
  const stream = body.getReader();
  try {
    for (;;) {
      const { done, value } = await stream.read();
      const records = done ? reader.finish() : reader.push(value);
      const first = records[0];
      if (first) return csvLayout(headerOf(first));
      if (done) throw new FileRefusal("header: the file is empty");
    }
  } finally {
    await stream.cancel();
  }
}

function headerOf(record: CsvRecord): string[] {
  if (record.kind === "too_large") throw new FileRefusal("header: longer than a record may be");
  if (record.kind === "malformed") throw new FileRefusal(`header: csv ${record.rule}`);
  return record.fields.map((field) => {
    try {
      return utf8(field, 0);
    } catch {
      throw new FileRefusal("not_utf8: the header is not UTF-8");
    }
  });
}

async function csvEntry(layout: CsvLayout, record: CsvRecord, row: number, fileSha256: string): Promise<FileEntry> {
  const end = record.end;
  if (record.kind === "too_large") return { row, end, error: TOO_LARGE };
  if (record.kind === "malformed") return { row, end, error: { code: "invalid_input", detail: `csv: ${record.rule}` } };
  const cells = record.fields.map((field) => utf8(field, row));
  if (cells.every((cell) => cell === "")) return { row, end, blank: true };
  const made = await identifyItem(layout, cells, fileSha256);
  if (!made.ok) return { row, end, error: { code: "invalid_input", detail: made.detail } };
  return { row, end, text: JSON.stringify(made.item) };
}

/** What `push` makes of each chunk of the stream, then what `finish` makes of its end. */
async function* chunksOf<T>(body: ReadableStream<Uint8Array>, push: (chunk: Uint8Array) => T[], finish: () => T[]) {
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield push(value);
    }
    yield finish();
  } finally {
    reader.releaseLock();
  }
}
