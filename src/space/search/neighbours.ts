/**
 * The turns around a message (docs/api/search.md): the answer to a question is often the turn
 * after it, or the one after that when the agent first asks the customer to wait, so plain search
 * weighs a message with the words of the two turns before it in its session. They are found when
 * a search ranks, not stored with the message: a message's row holds its own words only, and a
 * search takes, besides the rows its words match, the turns after each of them (`turnsAfter`), and
 * reads the words of the turns before every candidate (`wordsBefore`). Storing them made each
 * message's row three times its size on the batch path (docs/performance.md). Turns are the
 * session's messages, in memory order (`occurred_at`, then arrival); a session's events are read
 * where memory keeps them (`session_events`, and `item_placements` until they are folded), and a
 * turn's stems and rows from `search_turns` (migrations 0022 and 0037), a small row per turn by
 * `seq`: neither a turn's item nor its text is read again.
 */
export const NEAR_TURNS = 2;
/** Stems the turns before give a message at most, the nearest turn's first. */
export const NEAR_STEMS = 32;

/** A message: where it stands in its session. */
export interface Turn {
  seq: number;
  sessionId: string;
  occurredAt: number;
}

/** A turn of a session with its stems, as `search_turns` holds them. */
interface Said {
  turn: number | null;
  session_id: string;
  occurred_at: number;
  seq: number;
  stems: string;
  [column: string]: SqlStorageValue;
}

/**
 * Keeps turns' stems and first index row by `seq`. A turn met twice (the reindex meets a
 * message's text and its transcript as two rows) keeps both's stems and the first row.
 */
export function rememberTurns(sql: SqlStorage, turns: readonly { seq: number; stems: readonly string[]; row: number }[]): void {
  if (turns.length === 0) return;
  sql.exec(
    `INSERT INTO search_turns (seq, stems, row) SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(?) WHERE true
     ON CONFLICT (seq) DO UPDATE SET stems = trim(stems || ' ' || excluded.stems), row = min(coalesce(row, excluded.row), excluded.row)`,
    JSON.stringify(turns.map(({ seq, stems, row }) => [seq, stems.join(" "), row])),
  );
}

/** A turn after a message, with its first `search_index` row. */
interface Following {
  message: number | null;
  session_id: string;
  occurred_at: number;
  seq: number;
  row: number;
  item_id: string;
  [column: string]: SqlStorageValue;
}

/**
 * The `search_index` rows of the `NEAR_TURNS` turns after each of the messages `itemIds` in its
 * session: rows whose turns before hold what a search's words matched, where their own words may
 * not. Three statements for all of them, as `wordsBefore`: the messages' places, the folded turns
 * after each, the unfolded turns of their sessions. A turn with a text and a transcript has its
 * second row right after its first: both are given, with its item, to be told from another's.
 */
export function turnsAfter(sql: SqlStorage, itemIds: readonly string[]): { row: number; itemId: string }[] {
  if (itemIds.length === 0) return [];
  const messages = placesOf(sql, itemIds);
  if (messages.length === 0) return [];
  const folded = sql
    .exec<Following>(
      `SELECT message, session_id, occurred_at, seq, row, item_id FROM (
         SELECT m.value ->> 2 AS message, e.session_id, e.occurred_at, e.seq, t.row, i.item_id,
           row_number() OVER (PARTITION BY m.value ->> 2 ORDER BY e.occurred_at, e.seq) AS n
         FROM json_each(?1) m CROSS JOIN session_events e CROSS JOIN search_turns t ON t.seq = e.seq
           CROSS JOIN items i ON i.seq = e.seq
         WHERE e.session_id = m.value ->> 0 AND t.row IS NOT NULL
           AND (e.occurred_at > m.value ->> 1 OR (e.occurred_at = m.value ->> 1 AND e.seq > m.value ->> 2))
           AND e.occurred_at <= coalesce((
             SELECT x.occurred_at FROM session_events x CROSS JOIN search_turns q ON q.seq = x.seq
             WHERE x.session_id = m.value ->> 0 AND q.row IS NOT NULL
               AND (x.occurred_at > m.value ->> 1 OR (x.occurred_at = m.value ->> 1 AND x.seq > m.value ->> 2))
             ORDER BY x.occurred_at, x.seq LIMIT 1 OFFSET ?3), 9e15)
       ) WHERE n <= ?2`,
      JSON.stringify(messages.map(({ sessionId, occurredAt, seq }) => [sessionId, occurredAt, seq])),
      NEAR_TURNS,
      NEAR_TURNS - 1,
    )
    .toArray();
  const unfolded = sql
    .exec<Following>(
      `SELECT NULL AS message, p.session_id, p.occurred_at, p.seq, t.row, i.item_id
       FROM item_placements p CROSS JOIN search_turns t ON t.seq = p.seq CROSS JOIN items i ON i.seq = p.seq
       WHERE p.session_id IN (SELECT value FROM json_each(?)) AND t.row IS NOT NULL`,
      JSON.stringify([...new Set(messages.map((message) => message.sessionId))]),
    )
    .toArray();
  const byMessage = grouped(folded, (row) => row.message as number);
  const bySession = grouped(unfolded, (row) => row.session_id);
  const rows = new Map<number, string>();
  for (const { seq, sessionId, occurredAt } of messages) {
    const after = [...(byMessage.get(seq) ?? []), ...(bySession.get(sessionId) ?? [])]
      .filter((other) => other.occurred_at > occurredAt || (other.occurred_at === occurredAt && other.seq > seq))
      .sort((a, b) => a.occurred_at - b.occurred_at || a.seq - b.seq);
    for (const turn of after.slice(0, NEAR_TURNS)) {
      rows.set(turn.row, turn.item_id);
      rows.set(turn.row + 1, turn.item_id);
    }
  }
  return [...rows].map(([row, itemId]) => ({ row, itemId }));
}

/** Where the messages `itemIds` stand in their sessions (none for a message in no session). */
function placesOf(sql: SqlStorage, itemIds: readonly string[]): (Turn & { itemId: string })[] {
  return sql
    .exec<{ item_id: string; seq: number; session_id: string; occurred_at: number }>(
      `SELECT item_id, seq, session_id, occurred_at FROM items
       WHERE item_id IN (SELECT value FROM json_each(?)) AND session_id IS NOT NULL`,
      JSON.stringify(itemIds),
    )
    .toArray()
    .map((row) => ({ itemId: row.item_id, seq: row.seq, sessionId: row.session_id, occurredAt: row.occurred_at }));
}

/**
 * For each of the messages `itemIds` (by item id), the distinct stems of the `NEAR_TURNS` turns
 * before it in its session, the nearest turn's first, `NEAR_STEMS` at most; none for the first
 * turn of a session (how often a word was said before matters little at the field's weight).
 * Three statements for all of them: their places; for each, its session's folded turns from the
 * `NEAR_TURNS`-th before it up to it; and the turns of their sessions not folded yet.
 */
export function wordsBefore(sql: SqlStorage, itemIds: readonly string[]): Map<string, readonly string[]> {
  if (itemIds.length === 0) return new Map();
  const turns = placesOf(sql, itemIds);
  if (turns.length === 0) return new Map();
  const folded = sql
    .exec<Said>(
      `WITH t AS MATERIALIZED (
         SELECT value ->> 0 AS session_id, value ->> 1 AS at, value ->> 2 AS seq FROM json_each(?1)
       )
       SELECT t.seq AS turn, e.session_id, e.occurred_at, e.seq, s.stems
       FROM t CROSS JOIN session_events e CROSS JOIN search_turns s ON s.seq = e.seq
       WHERE e.session_id = t.session_id AND e.occurred_at <= t.at AND e.occurred_at >= coalesce((
         SELECT p.occurred_at FROM session_events p CROSS JOIN search_turns q ON q.seq = p.seq
         WHERE p.session_id = t.session_id AND p.occurred_at <= t.at AND (p.occurred_at < t.at OR p.seq < t.seq)
         ORDER BY p.occurred_at DESC, p.seq DESC LIMIT 1 OFFSET ?2), -1)`,
      JSON.stringify(turns.map(({ sessionId, occurredAt, seq }) => [sessionId, occurredAt, seq])),
      NEAR_TURNS - 1,
    )
    .toArray();
  const unfolded = sql
    .exec<Said>(
      `SELECT NULL AS turn, p.session_id, p.occurred_at, p.seq, s.stems
       FROM item_placements p CROSS JOIN search_turns s ON s.seq = p.seq
       WHERE p.session_id IN (SELECT value FROM json_each(?))`,
      JSON.stringify([...new Set(turns.map((turn) => turn.sessionId))]),
    )
    .toArray();
  // Candidates of each turn: its own folded rows, and every unfolded turn of its session.
  const byTurn = grouped(folded, (row) => row.turn as number);
  const bySession = grouped(unfolded, (row) => row.session_id);
  const words = new Map<string, readonly string[]>();
  for (const { itemId, seq, sessionId, occurredAt } of turns) {
    const before = [...(byTurn.get(seq) ?? []), ...(bySession.get(sessionId) ?? [])]
      .filter((other) => other.occurred_at < occurredAt || (other.occurred_at === occurredAt && other.seq < seq))
      .sort((a, b) => b.occurred_at - a.occurred_at || b.seq - a.seq);
    const near = new Set<string>();
    for (const other of before.slice(0, NEAR_TURNS)) {
      for (const stem of other.stems === "" ? [] : other.stems.split(" ")) {
        if (near.size >= NEAR_STEMS) break;
        near.add(stem);
      }
    }
    words.set(itemId, [...near]);
  }
  return words;
}

function grouped<R, K>(rows: readonly R[], keyOf: (row: R) => K): Map<K, R[]> {
  const groups = new Map<K, R[]>();
  for (const row of rows) {
    const list = groups.get(keyOf(row)) ?? [];
    list.push(row);
    groups.set(keyOf(row), list);
  }
  return groups;
}
