/**
 * Why a file is not what it claims (docs/api/imports.md "Failed imports"): the import stops and
 * ends `failed` with this as its `reason`. A reason names a rule and a record number, never a
 * value of the file.
 */
export class FileRefusal extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = "FileRefusal";
  }
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The text of a record's bytes; a file that is not UTF-8 is refused at the first record that is not. */
export function utf8(bytes: Uint8Array, row: number): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new FileRefusal(`not_utf8: record ${row} is not UTF-8`);
  }
}

/** A NUL byte is never in a text file: the file is binary. */
export function refuseBinary(bytes: Uint8Array): void {
  if (bytes.indexOf(0) !== -1) throw new FileRefusal("binary: the file holds a NUL byte, not text");
}

/** UTF-8's byte order mark, which a file may start with (and which is not part of its first record). */
export const BOM = [0xef, 0xbb, 0xbf] as const;
