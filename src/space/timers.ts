/**
 * Every timed effect of a space is a row here (DESIGN §4): session closes, promise due dates,
 * suggestion jobs, the search index and reindex, model summaries, exports, erasures, retention, expired media reservations, imports nobody may be reading and kept idempotency answers whose day is over. The object keeps one alarm at the earliest due row, and its alarm handler
 * runs what is due, so a timer survives restarts and fires once.
 */
export type TimerKind =
  | "suggestions.debounce"
  | "suggestions.run"
  | "session.close"
  | "inbox.fold"
  | "sessions.fold"
  | "memory.compile"
  | "promise.due"
  | "search.reindex"
  | "search.index"
  | "memory.summarize"
  | "export.run"
  | "export.expire"
  | "forget.run"
  | "forget.sign"
  | "retention.run"
  | "media.expiry"
  | "import.watch"
  | "idempotency.purge";

export interface Timer {
  kind: TimerKind;
  key: string;
  dueAt: number;
  payload: unknown;
}

/** Sets a timer, replacing one of the same kind and key. */
export function setTimer(sql: SqlStorage, timer: Timer): void {
  sql.exec(
    `INSERT INTO timers (kind, key, due_at, payload) VALUES (?, ?, ?, ?)
     ON CONFLICT (kind, key) DO UPDATE SET due_at = excluded.due_at, payload = excluded.payload`,
    timer.kind,
    timer.key,
    timer.dueAt,
    JSON.stringify(timer.payload ?? null),
  );
}

/** Sets many timers in one statement, each replacing one of the same kind and key. */
export function setTimers(sql: SqlStorage, timers: readonly Timer[]): void {
  if (timers.length === 0) return;
  sql.exec(
    `INSERT INTO timers (kind, key, due_at, payload) SELECT t.value ->> 0, t.value ->> 1, t.value ->> 2, t.value ->> 3 FROM json_each(?) t WHERE true
     ON CONFLICT (kind, key) DO UPDATE SET due_at = excluded.due_at, payload = excluded.payload`,
    JSON.stringify(timers.map((timer) => [timer.kind, timer.key, timer.dueAt, JSON.stringify(timer.payload ?? null)])),
  );
}

export function deleteTimers(sql: SqlStorage, kind: TimerKind, keys: readonly string[]): void {
  if (keys.length === 0) return;
  sql.exec("DELETE FROM timers WHERE kind = ? AND key IN (SELECT value FROM json_each(?))", kind, JSON.stringify(keys));
}

/** Sets a timer unless one of the same kind and key is already waiting (a debounce that never starves). */
export function setTimerOnce(sql: SqlStorage, timer: Timer): void {
  sql.exec(
    "INSERT OR IGNORE INTO timers (kind, key, due_at, payload) VALUES (?, ?, ?, ?)",
    timer.kind,
    timer.key,
    timer.dueAt,
    JSON.stringify(timer.payload ?? null),
  );
}

/**
 * A debounce that each call pushes back to `now + waitMs`, but never past `maxWaitMs` after the
 * first call since it last fired (kept in its payload), so that steady calls never starve it.
 */
export function setDebounce(sql: SqlStorage, kind: TimerKind, now: number, waitMs: number, maxWaitMs: number): void {
  sql.exec(
    `INSERT INTO timers (kind, key, due_at, payload) VALUES (?, '', ?, ?)
     ON CONFLICT (kind, key) DO UPDATE SET due_at = min(excluded.due_at, coalesce(timers.payload ->> 'first' + ?, timers.due_at))`,
    kind,
    now + waitMs,
    JSON.stringify({ first: now }),
    maxWaitMs,
  );
}

/** Takes the timers due at `now`, oldest first: they are removed as they are handed out, in one statement. */
export function takeDueTimers(sql: SqlStorage, now: number, limit = 100): Timer[] {
  return sql
    .exec<{ kind: string; key: string; due_at: number; payload: string | null }>(
      `DELETE FROM timers WHERE (kind, key) IN (SELECT kind, key FROM timers WHERE due_at <= ? ORDER BY due_at LIMIT ?)
       RETURNING kind, key, due_at, payload`,
      now,
      limit,
    )
    .toArray()
    .sort((a, b) => a.due_at - b.due_at)
    .map((row) => ({
      kind: row.kind as TimerKind,
      key: row.key,
      dueAt: row.due_at,
      payload: row.payload === null ? null : JSON.parse(row.payload),
    }));
}

/** When the next timer is due, or null when none waits. */
export function nextDueAt(sql: SqlStorage): number | null {
  return sql.exec<{ due_at: number | null }>("SELECT min(due_at) AS due_at FROM timers").one().due_at ?? null;
}

/**
 * How long what batches append instead of writing in place (event placements, handle sightings;
 * the session inbox has a timer of its own, `sessions.fold`) and the etags context reads answered may wait before they are written, when
 * nothing writes them first.
 */
export const INBOX_FOLD_MS = 1_000;

/** Has everything appended folded within `INBOX_FOLD_MS` of `now`, unless a fold is already due. */
export function foldInboxesWithin(sql: SqlStorage, now: number): void {
  setTimerOnce(sql, { kind: "inbox.fold", key: "", dueAt: now + INBOX_FOLD_MS, payload: null });
}
