import { Problem } from "../../http/problem";
import { deleteTimers } from "../timers";
import { type ExportRow, requireExport } from "./records";

/**
 * A completed export lives 7 days (docs/api/privacy.md "Expiry"): time enough for the governance
 * team to fetch and hand it over, and no file of personal data stays in R2 past a week because
 * nobody came back for it. From then on its record and download link answer `404`; the
 * `export.expire` timer (one for the space, due at the earliest expiry) deletes the files from
 * R2 and then the rows.
 */
export const EXPORT_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** When a completed export expires; null for one not completed. */
export const expiresAt = (row: Pick<ExportRow, "state" | "completedAt">): number | null =>
  row.state === "completed" && row.completedAt !== null ? row.completedAt + EXPORT_TTL_MS : null;

/** The export as its routes see it: `404` once expired, even before the timer has deleted it. */
export function requireLiveExport(sql: SqlStorage, exportId: string, now: number): ExportRow {
  const row = requireExport(sql, exportId);
  const expiry = expiresAt(row);
  if (expiry !== null && expiry <= now) throw new Problem("not_found", "no such export");
  return row;
}

/** The expiry timer due at `at` unless it is due earlier already (an export completed). */
export function scheduleExpiry(sql: SqlStorage, at: number): void {
  sql.exec(
    `INSERT INTO timers (kind, key, due_at, payload) VALUES ('export.expire', '', ?, 'null')
     ON CONFLICT (kind, key) DO UPDATE SET due_at = min(due_at, excluded.due_at)`,
    at,
  );
}

/** R2 deletes at most this many keys in one call. */
const DELETE_BATCH = 1000;

/**
 * Deletes every expired export: its file in R2 first, then its rows (a failed delete leaves them
 * and the timer for the next round); then the timer is set for the next export to expire, or
 * dropped. Answers how many expired.
 */
export async function expireExports(sql: SqlStorage, bucket: R2Bucket, now: number): Promise<number> {
  const expired = sql
    .exec<{ export_id: string; object_key: string }>(
      "SELECT export_id, object_key FROM exports WHERE state = 'completed' AND completed_at <= ? ORDER BY completed_at LIMIT ?",
      now - EXPORT_TTL_MS,
      DELETE_BATCH,
    )
    .toArray();
  if (expired.length > 0) {
    await bucket.delete(expired.map((row) => row.object_key));
    const ids = JSON.stringify(expired.map((row) => row.export_id));
    sql.exec("DELETE FROM export_profiles WHERE export_id IN (SELECT value FROM json_each(?))", ids);
    sql.exec("DELETE FROM exports WHERE export_id IN (SELECT value FROM json_each(?))", ids);
  }
  deleteTimers(sql, "export.expire", [""]);
  const next = sql
    .exec<{ completed_at: number | null }>("SELECT min(completed_at) AS completed_at FROM exports WHERE state = 'completed'")
    .one().completed_at;
  if (next !== null) scheduleExpiry(sql, Math.max(next + EXPORT_TTL_MS, now));
  return expired.length;
}
