import { MAX_BATCH_ITEMS } from "../../contract/batch";
import type { SpaceConfigValues } from "../../contract/config";
import type { RowError } from "../../contract/imports";
import type { ItemCode } from "../../http/problem";
import { type Intake, type IntakeCaller, ingestBatch } from "../intake";
import type { MediaCheck } from "../media/references";
import type { LiveChanges } from "../memory/intake";
import { advance, type ImportOffset, readsOn } from "./records";
import { watchImport } from "./watch";

/** Records per call of a reader into the space: a batch's most (the space stores them in slices of its own). */
export const CHUNK_RECORDS = MAX_BATCH_ITEMS;

/**
 * One record of a file as its reader sends it to the space: the JSON text of one batch item
 * (an NDJSON line as it stands, a CSV record as the identify item it makes), or the reason the
 * reader could not make one. `end` is the byte offset just after the record.
 */
export type ImportRecord =
  | { row: number; end: number; text: string }
  | { row: number; end: number; error: { code: ItemCode; detail: string } };

/** Records read from `from` on, and where the reading stands after them (past blank lines too). */
export interface ImportChunk {
  from: number;
  records: ImportRecord[];
  to: ImportOffset;
}

export interface ChunkContext {
  intake: Intake;
  caller: IntakeCaller;
  importId: string;
  now: number;
  config: SpaceConfigValues;
  media: MediaCheck;
}

/** What `ingestChunk` stored; `stale` when another reader had moved the import on. */
export interface ChunkOutcome {
  stale: boolean;
  accepted: number;
}

/**
 * Stores a chunk of a file through the batch's own code (`ingestBatch`: the same checks, the same
 * errors, dedup by `idempotency_key`), in slices of `sliceRecords`, each one transaction that
 * also moves the import's offset past its records: a reader that dies between slices goes on
 * from the last one committed, and no record is stored twice. A slice that does not start where
 * the import stands is not stored (another reader is ahead). Yields each slice's live changes
 * once committed; the object lets requests in between.
 */
export function* ingestChunk(
  context: ChunkContext,
  chunk: ImportChunk,
  sliceRecords: number,
): Generator<LiveChanges, ChunkOutcome, void> {
  let from = chunk.from;
  let accepted = 0;
  for (let start = 0; start === 0 || start < chunk.records.length; start += sliceRecords) {
    const slice = chunk.records.slice(start, start + sliceRecords);
    const last = start + sliceRecords >= chunk.records.length;
    const lastRecord = slice[slice.length - 1];
    const to = last || !lastRecord ? chunk.to : { byte: lastRecord.end, record: lastRecord.row };
    const stored = context.intake.turn(() => storeSlice(context, slice, from, to));
    if (!stored) return { stale: true, accepted };
    accepted += stored.accepted;
    from = to.byte;
    yield stored.live;
  }
  return { stale: false, accepted };
}

function storeSlice(
  { intake, caller, importId, now, config, media }: ChunkContext,
  records: readonly ImportRecord[],
  from: number,
  to: ImportOffset,
): { live: LiveChanges; accepted: number } | null {
  if (!readsOn(intake.sql, importId, from)) return null;
  const errors: RowError[] = [];
  const items: unknown[] = [];
  const rows: number[] = [];
  for (const record of records) {
    if ("error" in record) {
      errors.push({ row: record.row, ...record.error });
      continue;
    }
    try {
      items.push(JSON.parse(record.text));
      rows.push(record.row);
    } catch {
      errors.push({ row: record.row, code: "invalid_input", detail: "line: not_json" });
    }
  }
  let answer = { accepted: 0, duplicates: 0, errors: [] as { index: number; code: ItemCode; detail: string }[] };
  let live: LiveChanges = { added: [], closed: [], reopened: [] };
  if (items.length > 0) {
    const batch = ingestBatch(intake, caller, { items }, now, config, Number.POSITIVE_INFINITY, media);
    for (let step = batch.next(); ; step = batch.next()) {
      if (step.done) {
        answer = step.value;
        break;
      }
      live = step.value.live;
    }
    const refused = new Set(answer.errors.map((error) => error.index));
    recordRows(
      intake.sql,
      importId,
      items.flatMap((item, index) => (refused.has(index) ? [] : [{ item, row: rows[index] ?? 0 }])),
    );
  }
  for (const error of answer.errors) errors.push({ row: rows[error.index] ?? 0, code: error.code, detail: error.detail });
  advance(intake.sql, importId, to, {
    records: records.length,
    accepted: answer.accepted,
    duplicates: answer.duplicates,
    errors,
  });
  // Progress: the watch starts over from this chunk.
  watchImport(intake.sql, importId, "queued", now);
  return { live, accepted: answer.accepted };
}

/** Which records stand for items of which profile now (a duplicate names the profile its first arrival went to). */
function recordRows(sql: SqlStorage, importId: string, stored: readonly { item: unknown; row: number }[]): void {
  const keyed = stored.flatMap(({ item, row }) => {
    const key = (item as { idempotency_key?: unknown } | null)?.idempotency_key;
    return typeof key === "string" ? [[key, row]] : [];
  });
  if (keyed.length === 0) return;
  sql.exec(
    `INSERT OR IGNORE INTO import_rows (import_id, row, profile_id)
     SELECT ?, k.value ->> 1, i.profile_id FROM json_each(?) k CROSS JOIN items i
     WHERE i.idempotency_key = k.value ->> 0 AND i.profile_id IS NOT NULL`,
    importId,
    JSON.stringify(keyed),
  );
}
