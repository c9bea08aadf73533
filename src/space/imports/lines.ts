import { BOM, refuseBinary } from "./file-refusal";

/** One line of an NDJSON file as read: its bytes without the line break, or too long to hold; `end` is the offset after its break. */
export type Line = { kind: "line"; bytes: Uint8Array; end: number } | { kind: "too_large"; end: number };

const LF = 0x0a;
const CR = 0x0d;

/**
 * Splits a stream of bytes into lines (LF or CRLF), with the offset after each, so that a read
 * can resume there. A line longer than `maxLineBytes` is reported `too_large` without being
 * held: a file without a single line break costs no memory. A UTF-8 BOM at the file's start is
 * skipped.
 */
export class LineReader {
  #offset: number;
  #pieces: Uint8Array[] = [];
  #held = 0;
  #tooLarge = false;
  /** Bytes of a BOM read at the file's start so far; -1 once past it. */
  #bom: number;

  constructor(
    startOffset: number,
    readonly maxLineBytes: number,
  ) {
    this.#offset = startOffset;
    this.#bom = startOffset === 0 ? 0 : -1;
  }

  push(chunk: Uint8Array): Line[] {
    refuseBinary(chunk);
    const out: Line[] = [];
    let from = this.#bom >= 0 ? this.#skipBom(chunk) : 0;
    for (;;) {
      const at = chunk.indexOf(LF, from);
      if (at === -1) {
        this.#hold(chunk.subarray(from));
        break;
      }
      this.#hold(chunk.subarray(from, at));
      out.push(this.#endLine(this.#offset + at + 1));
      from = at + 1;
    }
    this.#offset += chunk.length;
    return out;
  }

  /** How many bytes of `chunk` are the rest of a BOM (which may come split over chunks). */
  #skipBom(chunk: Uint8Array): number {
    let at = 0;
    while (this.#bom < BOM.length && at < chunk.length) {
      if (chunk[at] !== BOM[this.#bom]) {
        // Not a BOM after all: the bytes taken for one are the line's.
        this.#hold(Uint8Array.from(BOM.slice(0, this.#bom)));
        this.#bom = -1;
        return at;
      }
      this.#bom++;
      at++;
    }
    if (this.#bom === BOM.length) this.#bom = -1;
    return at;
  }

  /** The last line, when the file does not end with a line break. */
  finish(): Line[] {
    if (this.#held === 0 && !this.#tooLarge) return [];
    return [this.#endLine(this.#offset)];
  }

  #hold(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.#held += bytes.length;
    if (this.#held > this.maxLineBytes) {
      this.#tooLarge = true;
      this.#pieces = [];
      return;
    }
    // Copied: the chunk's buffer is the stream's, which may reuse it.
    this.#pieces.push(bytes.slice());
  }

  #endLine(end: number): Line {
    const line: Line = this.#tooLarge ? { kind: "too_large", end } : { kind: "line", bytes: this.#joined(), end };
    this.#pieces = [];
    this.#held = 0;
    this.#tooLarge = false;
    return line;
  }

  #joined(): Uint8Array {
    const whole = this.#pieces.length === 1 ? (this.#pieces[0] as Uint8Array) : concat(this.#pieces, this.#held);
    return whole.length > 0 && whole[whole.length - 1] === CR ? whole.subarray(0, whole.length - 1) : whole;
  }
}

function concat(pieces: readonly Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}
