/**
 * The turns around a message, whose words `search_stems.near` holds (docs/api/search.md): the
 * answer to a question is often the turn after it, or the one after that when the agent first
 * asks the customer to wait, so a message is indexed with the words of the two turns before it
 * in its session. Only turns before: the turn after arrives in a later batch as a rule, and
 * giving its words to an earlier row would rewrite that row's index entry (an FTS5 delete and
 * insert) on the batch path; and a question found by its answer's words helps less than the
 * reverse. Turns are the session's messages, in memory order (`occurred_at`, then arrival); a
 * session's events are read where memory keeps them (`session_events`, and `item_placements`
 * until they are folded), and a turn's stems from `search_turns` (migration 0022), a small row
 * per turn by `seq`: neither a turn's item nor its text is read again.
 */
export const NEAR_TURNS = 2;
/**
 * Stems the turns before give a message at most, the nearest turn's first: a long turn before
 * would otherwise make a row several times its own size, on the batch path.
 */
export const NEAR_STEMS = 32;

/** A message being indexed: where it stands in its session. */
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
 * Keeps turns' stems by `seq`. A turn met twice (the reindex meets a message's text and its
 * transcript as two rows) keeps both's stems.
 */
export function rememberTurns(sql: SqlStorage, turns: readonly { seq: number; stems: readonly string[] }[]): void {
  if (turns.length === 0) return;
  sql.exec(
    `INSERT INTO search_turns (seq, stems) SELECT value ->> 0, value ->> 1 FROM json_each(?) WHERE true
     ON CONFLICT (seq) DO UPDATE SET stems = trim(stems || ' ' || excluded.stems)`,
    JSON.stringify(turns.map(({ seq, stems }) => [seq, stems.join(" ")])),
  );
}

/**
 * For each of `turns` (by `seq`), the distinct stems of the `NEAR_TURNS` turns before it in its
 * session, the nearest turn's first, `NEAR_STEMS` at most; none for the first turn of a session
 * (how often a word was said before matters little at the field's weight, and a shorter row
 * costs the batch less). Two statements for all of them: for each, its session's folded turns
 * from the `NEAR_TURNS`-th before it up to it; and the turns of its session not folded yet
 * (a batch's own among them, once `rememberTurns` has them).
 */
export function wordsBefore(sql: SqlStorage, turns: readonly Turn[]): Map<number, readonly string[]> {
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
  const words = new Map<number, readonly string[]>();
  for (const { seq, sessionId, occurredAt } of turns) {
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
    words.set(seq, [...near]);
  }
  return words;
}

function grouped<K>(rows: readonly Said[], keyOf: (row: Said) => K): Map<K, Said[]> {
  const groups = new Map<K, Said[]>();
  for (const row of rows) {
    const list = groups.get(keyOf(row)) ?? [];
    list.push(row);
    groups.set(keyOf(row), list);
  }
  return groups;
}
