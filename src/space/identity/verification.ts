import { LEVELS, type Level } from "../../contract/common";

export type VerificationTarget = { kind: "conversation" | "task"; id: string };

/** Raises a conversation's or task's verification level; it never goes down. `no_customer` is kept only as a first level. */
export function raiseLevel(sql: SqlStorage, target: VerificationTarget, level: Level, now: number): void {
  const current = levelOf(sql, target);
  if (current !== null && (level === "no_customer" || LEVELS.indexOf(level) <= LEVELS.indexOf(current))) return;
  sql.exec(
    `INSERT INTO verification_levels (target_kind, target_id, level, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (target_kind, target_id) DO UPDATE SET level = excluded.level, updated_at = excluded.updated_at`,
    target.kind,
    target.id,
    level,
    now,
  );
}

export function levelOf(sql: SqlStorage, target: VerificationTarget): Level | null {
  return (
    (sql
      .exec<{ level: string }>(
        "SELECT level FROM verification_levels WHERE target_kind = ? AND target_id = ?",
        target.kind,
        target.id,
      )
      .toArray()[0]?.level as Level | undefined) ?? null
  );
}
