import type { ExportCounts, ExportRecord, ExportState } from "../../contract/exports";
import { Problem } from "../../http/problem";
import { uuidv7 } from "../../ids";
import { emptyCounts } from "./lines";

/** An export's row (`exports`) and the profiles it holds (`export_profiles`). */
export interface ExportRow {
  exportId: string;
  profileId: string;
  state: ExportState;
  objectKey: string;
  uploadId: string | null;
  attempts: number;
  counts: ExportCounts;
  bytes: number | null;
  requestedBy: string;
  createdAt: number;
  completedAt: number | null;
  members: string[];
}

interface Row {
  export_id: string;
  profile_id: string;
  state: string;
  object_key: string;
  upload_id: string | null;
  attempts: number;
  counts: string;
  bytes: number | null;
  requested_by: string;
  created_at: number;
  completed_at: number | null;
  [column: string]: SqlStorageValue;
}

/** Where an export's file is in the `FILES` bucket (DESIGN §1). */
export const exportObjectKey = (space: string, exportId: string) => `spaces/${space}/exports/${exportId}`;

export function insertExport(
  sql: SqlStorage,
  subject: { space: string; rootId: string; members: readonly string[] },
  requestedBy: string,
  now: number,
): ExportRow {
  const exportId = uuidv7(now);
  const objectKey = exportObjectKey(subject.space, exportId);
  sql.exec(
    `INSERT INTO exports (export_id, profile_id, state, object_key, upload_id, attempts, counts, bytes, requested_by, created_at, completed_at)
     VALUES (?, ?, 'running', ?, NULL, 0, ?, NULL, ?, ?, NULL)`,
    exportId,
    subject.rootId,
    objectKey,
    JSON.stringify(emptyCounts()),
    requestedBy,
    now,
  );
  sql.exec(
    "INSERT INTO export_profiles (export_id, profile_id) SELECT ?, value FROM json_each(?)",
    exportId,
    JSON.stringify(subject.members),
  );
  return readExport(sql, exportId) as ExportRow;
}

export function readExport(sql: SqlStorage, exportId: string): ExportRow | null {
  const row = sql.exec<Row>("SELECT * FROM exports WHERE export_id = ?", exportId).toArray()[0];
  if (!row) return null;
  const members = sql
    .exec<{ profile_id: string }>("SELECT profile_id FROM export_profiles WHERE export_id = ?", exportId)
    .toArray()
    .map((member) => member.profile_id);
  return {
    exportId: row.export_id,
    profileId: row.profile_id,
    state: row.state as ExportState,
    objectKey: row.object_key,
    uploadId: row.upload_id,
    attempts: row.attempts,
    counts: JSON.parse(row.counts) as ExportCounts,
    bytes: row.bytes,
    requestedBy: row.requested_by,
    createdAt: row.created_at,
    completedAt: row.completed_at,
    members,
  };
}

export function requireExport(sql: SqlStorage, exportId: string): ExportRow {
  const row = readExport(sql, exportId);
  if (!row) throw new Problem("not_found", "no such export");
  return row;
}

/** Writes what changed of a running export. */
export function updateExport(
  sql: SqlStorage,
  exportId: string,
  change: Partial<Pick<ExportRow, "state" | "uploadId" | "attempts" | "counts" | "bytes" | "completedAt">>,
): void {
  const row = requireExport(sql, exportId);
  const next = { ...row, ...change };
  sql.exec(
    "UPDATE exports SET state = ?, upload_id = ?, attempts = ?, counts = ?, bytes = ?, completed_at = ? WHERE export_id = ?",
    next.state,
    next.uploadId,
    next.attempts,
    JSON.stringify(next.counts),
    next.bytes,
    next.completedAt,
    exportId,
  );
}

/** The status record; `download` only for a completed export. */
export function exportView(row: ExportRow, download: ExportRecord["download"]): ExportRecord {
  return {
    export_id: row.exportId,
    state: row.state,
    profile_id: row.profileId,
    counts: row.counts,
    bytes: row.bytes,
    created_at: new Date(row.createdAt).toISOString(),
    completed_at: row.completedAt === null ? null : new Date(row.completedAt).toISOString(),
    download: row.state === "completed" ? download : null,
  };
}

/**
 * Every export holding data of one of `profileIds`: what forget erases (these rows in its
 * request, `identity-cut.ts`; the file and any upload in R2 before its receipt, `receipt-signer.ts`).
 */
export function exportsHolding(
  sql: SqlStorage,
  profileIds: readonly string[],
): { exportId: string; objectKey: string; uploadId: string | null }[] {
  return sql
    .exec<{ export_id: string; object_key: string; upload_id: string | null }>(
      `SELECT DISTINCT x.export_id, x.object_key, x.upload_id FROM json_each(?) p
       CROSS JOIN export_profiles ep ON ep.profile_id = p.value CROSS JOIN exports x ON x.export_id = ep.export_id`,
      JSON.stringify(profileIds),
    )
    .toArray()
    .map((row) => ({ exportId: row.export_id, objectKey: row.object_key, uploadId: row.upload_id }));
}

export function deleteExports(sql: SqlStorage, exportIds: readonly string[]): void {
  const ids = JSON.stringify(exportIds);
  sql.exec("DELETE FROM export_profiles WHERE export_id IN (SELECT value FROM json_each(?))", ids);
  sql.exec("DELETE FROM exports WHERE export_id IN (SELECT value FROM json_each(?))", ids);
}
