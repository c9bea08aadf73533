import type { Env } from "../env";
import { unwrap } from "../http/problem";
import { spaceObject } from "../space/address";
import { CHUNK_RECORDS, type ImportChunk, type ImportRecord } from "../space/imports/chunks";
import { type FileEntry, fileEntries, MAX_RECORD_BYTES, readCsvLayout } from "../space/imports/file-records";
import { FileRefusal } from "../space/imports/file-refusal";
import type { ImportOffset } from "../space/imports/records";

/** Text per call into the space, at most (plus one record). */
const CHUNK_BYTES = 4 * MAX_RECORD_BYTES;

/** How long one run of the consumer reads, over all the messages of its batch, before it hands the rest to new messages (its wall time is 15 minutes). */
export const READ_BUDGET_MS = 10 * 60 * 1000;

/** What a reading came to: the import ended (or was never this reader's to read), or the rest is left to a new message. */
export type ReadOutcome = "ended" | "continue";

export interface ReadOptions {
  /** Where the file is read from: the bucket, or a stand-in for it (tests break it midway). */
  files: Pick<R2Bucket, "get">;
  /** How long this reading may go on: what is left of its consumer run's budget (`consume`). */
  budgetMs: number;
  clock: () => number;
}

/**
 * Reads an import's file (docs/api/imports.md "How an import runs"): takes the import from the
 * space (`startImport`: where its reading stands), streams the file from R2 from that offset and
 * hands it to the space in chunks (`importChunk`), each stored with the offset after it. A reader
 * that dies leaves the offset of its last chunk; the next delivery of the message goes on from
 * there. Two readers of one import (a redelivery beside a slow first) cannot both store a chunk:
 * the space stores only one that starts where the import stands, and the reader refused stops.
 */
export async function readImport(env: Env, space: string, importId: string, options: ReadOptions): Promise<ReadOutcome> {
  const started = options.clock();
  const stub = spaceObject(env, space);
  const plan = unwrap(await stub.startImport(importId));
  if (!plan) return "ended";
  let at: ImportOffset = plan.offset;
  const fail = async (reason: string) => {
    unwrap(await stub.endImport(importId, { at: at.byte, failure: reason }));
    return "ended" as const;
  };
  try {
    // Every record is stored (a reader stopped after the last chunk, before ending the import):
    // nothing is left to read, and R2 refuses a range that starts at the object's end.
    if (at.byte > 0 && at.byte >= plan.sizeBytes) {
      unwrap(await stub.endImport(importId, { at: at.byte, failure: null }));
      return "ended";
    }
    const layout = plan.format === "csv" && at.byte > 0 ? await csvLayoutOf(options.files, plan.objectKey) : null;
    if (layout === undefined) return await fail("file_missing: the file is no longer stored");
    const object = await options.files.get(plan.objectKey, at.byte > 0 ? { range: { offset: at.byte } } : undefined);
    if (!object || !("body" in object)) return await fail("file_missing: the file is no longer stored");
    const entries = fileEntries(object.body, { ...plan, offset: at, layout });
    let records: ImportRecord[] = [];
    let bytes = 0;
    let reached = at;
    // One chunk in the space while the next is read: the space stores, the reader reads, at once.
    const pipe: { inFlight: Promise<{ stale: boolean }> | null } = { inFlight: null };
    const store = async (chunk: ImportChunk): Promise<{ stale: boolean }> => unwrap(await stub.importChunk(importId, chunk));
    /** Sends what was read once the chunk before is stored; true when the space refused that one (another reader is ahead). */
    const send = async () => {
      if (pipe.inFlight && (await pipe.inFlight).stale) return true;
      const chunk = { from: at.byte, records, to: reached };
      records = [];
      bytes = 0;
      at = reached;
      const sent = store(chunk);
      // Awaited by the next send or at the end; marked handled meanwhile.
      sent.catch(() => undefined);
      pipe.inFlight = sent;
      return false;
    };
    try {
      for await (const entry of entries) {
        reached = { byte: entry.end, record: entry.row };
        if (isBlank(entry)) continue;
        records.push(entry);
        bytes += "text" in entry ? entry.text.length : 0;
        if (records.length < CHUNK_RECORDS && bytes < CHUNK_BYTES) continue;
        if (await send()) return "ended";
        if (options.clock() - started >= options.budgetMs) {
          return (await pipe.inFlight)?.stale ? "ended" : "continue";
        }
      }
      if ((records.length > 0 || reached.byte !== at.byte) && (await send())) return "ended";
      if ((await pipe.inFlight)?.stale) return "ended";
    } finally {
      await pipe.inFlight?.catch(() => undefined);
      await entries.return();
      await object.body.cancel().catch(() => undefined);
    }
    unwrap(await stub.endImport(importId, { at: at.byte, failure: null }));
    return "ended";
  } catch (error) {
    if (error instanceof FileRefusal) return await fail(error.reason);
    throw error;
  }
}

const isBlank = (entry: FileEntry): entry is Extract<FileEntry, { blank: true }> => "blank" in entry;

/** The header of a CSV whose reading resumes past it; undefined when the file is gone. */
async function csvLayoutOf(files: Pick<R2Bucket, "get">, key: string) {
  const object = await files.get(key);
  if (!object || !("body" in object)) return undefined;
  return readCsvLayout(object.body);
}
