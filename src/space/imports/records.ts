import { type ImportFormat, type ImportStatus, MAX_ROW_ERRORS, type RowError } from "../../contract/imports";
import { Problem } from "../../http/problem";
import { uuidv7 } from "../../ids";
import { importKey } from "./keys";

export type ImportState = "receiving" | "queued" | "running" | "completed" | "failed";

/** Where an import's reading stands: the byte offset in its file and the last record number read. */
export interface ImportOffset {
  byte: number;
  record: number;
}

export interface ImportRow {
  import_id: string;
  format: string;
  object_key: string;
  own_file: number;
  file_sha256: string;
  size_bytes: number;
  key_id: string;
  status: string;
  reason: string | null;
  offset_byte: number;
  offset_record: number;
  records: number;
  accepted: number;
  duplicates: number;
  rejected: number;
  created_at: number;
  started_at: number | null;
  completed_at: number | null;
  [column: string]: SqlStorageValue;
}

/** What an import's reader needs to go on (`startImport`). */
export interface ImportPlan {
  importId: string;
  format: ImportFormat;
  objectKey: string;
  fileSha256: string;
  /** The file's length: a reading that starts there has nothing left to read. */
  sizeBytes: number;
  offset: ImportOffset;
}

/** A file on its way to R2 through `POST /v1/ingest/files`: not shown until `fileReceived`. */
export function receiveFile(sql: SqlStorage, space: string, format: ImportFormat, keyId: string, now: number): ImportRow {
  const importId = uuidv7(now);
  return insertImport(
    sql,
    { importId, format, objectKey: importKey(space, importId), ownFile: 1, sha256: "", size: 0 },
    keyId,
    "receiving",
    now,
  );
}

/** A media upload to import (the `media_ref` form): queued at once, read where media keeps it. */
export function importUpload(
  sql: SqlStorage,
  upload: { objectKey: string; sha256: string; sizeBytes: number },
  format: ImportFormat,
  keyId: string,
  now: number,
): ImportRow {
  const file = {
    importId: uuidv7(now),
    format,
    objectKey: upload.objectKey,
    ownFile: 0,
    sha256: upload.sha256,
    size: upload.sizeBytes,
  };
  return insertImport(sql, file, keyId, "queued", now);
}

function insertImport(
  sql: SqlStorage,
  file: { importId: string; format: ImportFormat; objectKey: string; ownFile: number; sha256: string; size: number },
  keyId: string,
  status: ImportState,
  now: number,
): ImportRow {
  sql.exec(
    `INSERT INTO imports (import_id, format, object_key, own_file, file_sha256, size_bytes, key_id, status, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    file.importId,
    file.format,
    file.objectKey,
    file.ownFile,
    file.sha256,
    file.size,
    keyId,
    status,
    now,
  );
  return requireImport(sql, file.importId, true);
}

/**
 * The file is whole in R2: the import is queued. False when the import is no longer receiving: its
 * watch dropped it, the file having taken longer than `RECEIVE_WINDOW_MS` (`watch.ts`).
 */
export function fileReceived(sql: SqlStorage, importId: string, file: { sha256: string; sizeBytes: number }): boolean {
  return (
    sql
      .exec(
        "UPDATE imports SET status = 'queued', file_sha256 = ?, size_bytes = ? WHERE import_id = ? AND status = 'receiving' RETURNING 1",
        file.sha256,
        file.sizeBytes,
        importId,
      )
      .toArray().length === 1
  );
}

/** The file never arrived whole (refused, cut off): nothing of the import stays. */
export function dropReceiving(sql: SqlStorage, importId: string): void {
  sql.exec("DELETE FROM imports WHERE import_id = ? AND status = 'receiving'", importId);
}

/** Nobody read the import for too long, however often its message was sent (`watch.ts`): it fails with `reason`. */
export function stallImport(sql: SqlStorage, importId: string, reason: string, now: number): ImportRow | null {
  sql.exec(
    "UPDATE imports SET status = 'failed', reason = ?, completed_at = ? WHERE import_id = ? AND status IN ('queued', 'running')",
    reason,
    now,
    importId,
  );
  const row = findImport(sql, importId);
  return row?.status === "failed" ? row : null;
}

export function findImport(sql: SqlStorage, importId: string): ImportRow | undefined {
  return sql.exec<ImportRow>("SELECT * FROM imports WHERE import_id = ?", importId).toArray()[0];
}

/** An import a caller may see; one still `receiving` is not one yet. */
export function requireImport(sql: SqlStorage, importId: string, receiving = false): ImportRow {
  const row = findImport(sql, importId);
  if (!row || (row.status === "receiving" && !receiving)) throw new Problem("not_found", "no such import");
  return row;
}

/** A reader takes the import: `queued` becomes `running`; one `running` goes on from its offset; one ended has nothing to read. */
export function startReading(sql: SqlStorage, importId: string, now: number): ImportRow | null {
  const row = findImport(sql, importId);
  if (!row || (row.status !== "queued" && row.status !== "running")) return null;
  if (row.status === "queued") {
    sql.exec("UPDATE imports SET status = 'running', started_at = ? WHERE import_id = ?", now, importId);
  }
  return row;
}

export const planOf = (row: ImportRow): ImportPlan => ({
  importId: row.import_id,
  format: row.format as ImportFormat,
  objectKey: row.object_key,
  fileSha256: row.file_sha256,
  sizeBytes: row.size_bytes,
  offset: { byte: row.offset_byte, record: row.offset_record },
});

/** Whether a chunk read from `from` follows what is stored: a reader that lost a race (a redelivery running beside it) is refused. */
export function readsOn(sql: SqlStorage, importId: string, from: number): boolean {
  return (
    sql.exec("SELECT 1 FROM imports WHERE import_id = ? AND status = 'running' AND offset_byte = ?", importId, from).toArray()
      .length === 1
  );
}

/** Counts a chunk's records in and moves the offset past them, in the chunk's transaction. */
export function advance(
  sql: SqlStorage,
  importId: string,
  to: ImportOffset,
  counts: { records: number; accepted: number; duplicates: number; errors: readonly RowError[] },
): void {
  sql.exec(
    `UPDATE imports SET offset_byte = ?, offset_record = ?, records = records + ?, accepted = accepted + ?,
       duplicates = duplicates + ?, rejected = rejected + ? WHERE import_id = ?`,
    to.byte,
    to.record,
    counts.records,
    counts.accepted,
    counts.duplicates,
    counts.errors.length,
    importId,
  );
  if (counts.errors.length === 0) return;
  const kept = sql.exec<{ n: number }>("SELECT count(*) AS n FROM import_errors WHERE import_id = ?", importId).one().n;
  const room = MAX_ROW_ERRORS - kept;
  if (room <= 0) return;
  const first = [...counts.errors].sort((a, b) => a.row - b.row).slice(0, room);
  sql.exec(
    `INSERT OR IGNORE INTO import_errors (import_id, row, code, detail)
     SELECT ?, e.value ->> 'row', e.value ->> 'code', e.value ->> 'detail' FROM json_each(?) e`,
    importId,
    JSON.stringify(first),
  );
}

/** The import ends: `completed` once its reader has read to the file's end, or `failed` with a reason. */
export function endImport(
  sql: SqlStorage,
  importId: string,
  end: { at: number; failure: string | null },
  now: number,
): ImportRow | null {
  const row = findImport(sql, importId);
  if (row?.status !== "running" || (end.failure === null && row.offset_byte !== end.at)) return null;
  sql.exec(
    "UPDATE imports SET status = ?, reason = ?, completed_at = ? WHERE import_id = ?",
    end.failure === null ? "completed" : "failed",
    end.failure,
    now,
    importId,
  );
  return findImport(sql, importId) ?? null;
}

export function statusOf(sql: SqlStorage, row: ImportRow): ImportStatus {
  const errors = sql
    .exec<{ row: number; code: string; detail: string }>(
      "SELECT row, code, detail FROM import_errors WHERE import_id = ? ORDER BY row",
      row.import_id,
    )
    .toArray() as RowError[];
  return {
    import_id: row.import_id,
    status: row.status as ImportStatus["status"],
    records: row.records,
    accepted: row.accepted,
    duplicates: row.duplicates,
    rejected: row.rejected,
    errors: errors.map((error) => ({ row: error.row, code: error.code, detail: error.detail })),
    reason: row.reason,
    created_at: new Date(row.created_at).toISOString(),
    completed_at: row.completed_at === null ? null : new Date(row.completed_at).toISOString(),
  };
}
