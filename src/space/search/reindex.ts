import { setTimer } from "../timers";
import { rememberTurns } from "./neighbours";
import { stemsOf } from "./stems";
import { stemRows } from "./writes";

/**
 * The reindex of a space whose rows were indexed before `search_stems` existed (migration 0018,
 * docs/api/search.md): the migration records the rows to stem (`search_reindex`: from `next_rowid`
 * to `last_rowid`; rows after it were written by batches with their stems) and sets a
 * `search.reindex` timer. Each run of it stems rows in rowid order, a step of
 * `REINDEX_STEP_ROWS` after another while the slice has time for one more (`REINDEX_SLICE_MS`),
 * remembering each message as a turn, and sets itself again at once: the alarm runs
 * the next slice in a round of its own, with requests let in between. Until the last slice,
 * plain search ranks word for word (`stemsReady`); then the row goes. Owns `search_reindex`.
 */
export const REINDEX_SLICE_MS = 10;
/** Rows of one step; steps follow each other within a slice while its time lasts. */
export const REINDEX_STEP_ROWS = 10;

interface Pending {
  next_rowid: number;
  last_rowid: number;
  [column: string]: SqlStorageValue;
}

interface OldRow {
  rowid: number;
  text: string;
  profile: string;
  source: string;
  seq: number | null;
  session_id: string | null;
  [column: string]: SqlStorageValue;
}

/** Whether every row has its stems: plain search ranks by them only then. */
export function stemsReady(sql: SqlStorage): boolean {
  return sql.exec("SELECT 1 FROM search_reindex LIMIT 1").toArray().length === 0;
}

/** One slice of the reindex (the `search.reindex` timer). */
export function reindexSlice(sql: SqlStorage, now: number, stopwatch: () => number): void {
  const pending = sql.exec<Pending>("SELECT next_rowid, last_rowid FROM search_reindex").toArray()[0];
  if (!pending) return;
  const started = stopwatch();
  let step = 0;
  let next = pending.next_rowid;
  // A step starts only while the slice has time for one more like the last.
  while (next <= pending.last_rowid && (step === 0 || stopwatch() - started + step <= REINDEX_SLICE_MS)) {
    const stepStarted = stopwatch();
    const rows = sql
      .exec<OldRow>(
        `SELECT s.rowid, s.text, s.profile, s.source, i.seq, i.session_id
         FROM search_index s LEFT JOIN items i ON s.kind IN ('message', 'transcript') AND i.item_id = s.ref_id
         WHERE s.rowid >= ? AND s.rowid <= ? ORDER BY s.rowid LIMIT ?`,
        next,
        pending.last_rowid,
        REINDEX_STEP_ROWS,
      )
      .toArray();
    const stemmed = rows.map((row) => ({ ...row, stems: stemsOf(row.text) }));
    rememberTurns(
      sql,
      stemmed.flatMap(({ rowid, seq, session_id, stems }) =>
        seq === null || session_id === null ? [] : [{ seq, stems, row: rowid }],
      ),
    );
    stemRows(sql, stemmed, true);
    next = rows.length === 0 ? pending.last_rowid + 1 : (rows.at(-1)?.rowid ?? pending.last_rowid) + 1;
    step = Math.max(stopwatch() - stepStarted, Number.MIN_VALUE);
  }
  if (next > pending.last_rowid) {
    sql.exec("DELETE FROM search_reindex");
    return;
  }
  sql.exec("UPDATE search_reindex SET next_rowid = ?", next);
  setTimer(sql, { kind: "search.reindex", key: "", dueAt: now, payload: null });
}
