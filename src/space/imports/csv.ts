import { BOM, refuseBinary } from "./file-refusal";

/**
 * One CSV record as read: its fields' bytes (UTF-8 is checked by the caller, which knows the
 * record's number), or why it cannot be read; `end` is the byte offset just after it (its line
 * end included), where a read can start again.
 */
export type CsvRecord =
  | { kind: "fields"; fields: Uint8Array[]; end: number }
  | { kind: "malformed"; rule: string; end: number }
  | { kind: "too_large"; end: number };

const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;

enum State {
  /** At the start of a field. */
  FieldStart,
  Unquoted,
  Quoted,
  /** A quote inside a quoted field: the field's end, or the first of two (an escaped quote). */
  QuoteInQuoted,
  /** After a CR that ended a record: an LF next belongs to it. */
  AfterCr,
}

/**
 * A streaming CSV reader (RFC 4180: fields separated by commas, records by CRLF, LF or CR;
 * a field in double quotes may hold commas, quotes doubled and line breaks; a UTF-8 BOM at the
 * file's start is skipped). Bytes go in as they come from R2, in chunks of any size; records come
 * out with the offset after each, so that a read can resume there. State machine over bytes: the
 * syntax is ASCII, so UTF-8 text passes through untouched. A record longer than `maxRecordBytes`
 * is reported `too_large` without being held; a quote where RFC 4180 allows none makes the record
 * `malformed` (read on to its end, so the next record is found).
 */
export class CsvReader {
  #state = State.FieldStart;
  #offset: number;
  #atFileStart: boolean;
  #field = new Uint8Array(256);
  #fieldLength = 0;
  #fields: Uint8Array[] = [];
  #recordBytes = 0;
  #recordStarted = false;
  #malformed: string | null = null;
  #bomChecked = 0;

  constructor(
    startOffset: number,
    readonly maxRecordBytes: number,
  ) {
    this.#offset = startOffset;
    this.#atFileStart = startOffset === 0;
  }

  /** The records completed by `chunk`. */
  push(chunk: Uint8Array): CsvRecord[] {
    refuseBinary(chunk);
    const out: CsvRecord[] = [];
    let at = 0;
    if (this.#atFileStart) at = this.#skipBom(chunk);
    for (; at < chunk.length; at++) {
      const byte = chunk[at] as number;
      const position = this.#offset + at;
      switch (this.#state) {
        case State.AfterCr:
          this.#state = State.FieldStart;
          if (byte === LF) {
            out.push(this.#endRecord(position + 1));
            continue;
          }
          out.push(this.#endRecord(position));
          this.#fieldStart(byte, position, out);
          break;
        case State.FieldStart:
          this.#fieldStart(byte, position, out);
          break;
        case State.Unquoted:
          if (byte === COMMA) this.#endField(State.FieldStart);
          else if (byte === LF) {
            this.#endField(State.FieldStart);
            out.push(this.#endRecord(position + 1));
          } else if (byte === CR) this.#endField(State.AfterCr);
          else {
            if (byte === QUOTE) this.#malformed ??= "quote_in_unquoted_field";
            this.#append(byte);
          }
          break;
        case State.Quoted:
          if (byte === QUOTE) this.#state = State.QuoteInQuoted;
          else this.#append(byte);
          break;
        case State.QuoteInQuoted:
          if (byte === QUOTE) {
            this.#append(QUOTE);
            this.#state = State.Quoted;
          } else if (byte === COMMA) this.#endField(State.FieldStart);
          else if (byte === LF) {
            this.#endField(State.FieldStart);
            out.push(this.#endRecord(position + 1));
          } else if (byte === CR) this.#endField(State.AfterCr);
          else {
            this.#malformed ??= "text_after_closing_quote";
            this.#append(byte);
            this.#state = State.Unquoted;
          }
          break;
      }
    }
    this.#offset += chunk.length;
    return out;
  }

  /** The last record, when the file does not end with a line break. */
  finish(): CsvRecord[] {
    const end = this.#offset;
    switch (this.#state) {
      case State.AfterCr:
        this.#state = State.FieldStart;
        return [this.#endRecord(end)];
      case State.FieldStart:
        if (!this.#recordStarted) return [];
        this.#endField(State.FieldStart);
        return [this.#endRecord(end)];
      case State.Quoted:
        this.#malformed ??= "unterminated_quoted_field";
        this.#endField(State.FieldStart);
        return [this.#endRecord(end)];
      default:
        this.#endField(State.FieldStart);
        return [this.#endRecord(end)];
    }
  }

  #fieldStart(byte: number, position: number, out: CsvRecord[]): void {
    this.#recordStarted = true;
    if (byte === QUOTE) this.#state = State.Quoted;
    else if (byte === COMMA) this.#endField(State.FieldStart);
    else if (byte === LF) {
      this.#endField(State.FieldStart);
      out.push(this.#endRecord(position + 1));
    } else if (byte === CR) this.#endField(State.AfterCr);
    else {
      this.#append(byte);
      this.#state = State.Unquoted;
    }
  }

  /** How many bytes of a BOM start the file (it may come split over chunks). */
  #skipBom(chunk: Uint8Array): number {
    let at = 0;
    while (this.#bomChecked < BOM.length && at < chunk.length) {
      if (chunk[at] !== BOM[this.#bomChecked]) {
        // Not a BOM after all: the bytes taken for one are the record's.
        for (let taken = 0; taken < this.#bomChecked; taken++) this.#append(BOM[taken] as number);
        if (this.#bomChecked > 0) this.#state = State.Unquoted;
        this.#bomChecked = BOM.length;
        this.#atFileStart = false;
        return at;
      }
      this.#bomChecked++;
      at++;
    }
    if (this.#bomChecked === BOM.length) this.#atFileStart = false;
    return at;
  }

  #append(byte: number): void {
    this.#recordStarted = true;
    this.#recordBytes++;
    if (this.#recordBytes > this.maxRecordBytes) return;
    if (this.#fieldLength === this.#field.length) {
      const grown = new Uint8Array(this.#field.length * 2);
      grown.set(this.#field);
      this.#field = grown;
    }
    this.#field[this.#fieldLength++] = byte;
  }

  #endField(next: State): void {
    this.#recordStarted = true;
    this.#state = next;
    if (this.#recordBytes <= this.maxRecordBytes) this.#fields.push(this.#field.slice(0, this.#fieldLength));
    this.#fieldLength = 0;
  }

  #endRecord(end: number): CsvRecord {
    const record: CsvRecord =
      this.#recordBytes > this.maxRecordBytes
        ? { kind: "too_large", end }
        : this.#malformed !== null
          ? { kind: "malformed", rule: this.#malformed, end }
          : { kind: "fields", fields: this.#fields, end };
    this.#fields = [];
    this.#recordBytes = 0;
    this.#recordStarted = false;
    this.#malformed = null;
    return record;
  }
}
