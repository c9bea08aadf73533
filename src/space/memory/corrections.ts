import type { FeedbackItem } from "../../contract/feedback";

/** What feedback said about one target; the latest feedback on a target (by arrival) wins. */
export interface Correction {
  action: FeedbackItem["action"];
  value: string | null;
  itemId: string;
}

export function recordCorrection(sql: SqlStorage, targetId: string, correction: Correction, seq: number): void {
  sql.exec(
    `INSERT INTO corrections (target_id, action, value, item_id, seq) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (target_id) DO UPDATE SET action = excluded.action, value = excluded.value,
       item_id = excluded.item_id, seq = excluded.seq WHERE excluded.seq > corrections.seq`,
    targetId,
    correction.action,
    correction.value,
    correction.itemId,
    seq,
  );
}

/** The corrections of some targets, in one statement. */
export function correctionsOf(sql: SqlStorage, targetIds: readonly string[]): Map<string, Correction> {
  const corrections = new Map<string, Correction>();
  if (targetIds.length === 0) return corrections;
  const rows = sql.exec<{ target_id: string; action: Correction["action"]; value: string | null; item_id: string }>(
    "SELECT c.target_id, c.action, c.value, c.item_id FROM json_each(?) j CROSS JOIN corrections c WHERE c.target_id = j.value",
    JSON.stringify(targetIds),
  );
  for (const row of rows) corrections.set(row.target_id, { action: row.action, value: row.value, itemId: row.item_id });
  return corrections;
}
