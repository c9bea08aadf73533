import { stemsOf } from "./stems";

/**
 * The turns around a message, whose words `search_stems.near` holds (docs/api/search.md): the
 * answer to a question is often the turn after it, or the one after that when the agent first
 * asks the customer to wait, so a message is indexed with the words of the two turns before it
 * in its session. Only turns before: the turn after arrives in a later batch as a rule, and
 * giving its words to an earlier row would rewrite that row's index entry (an FTS5 delete and
 * insert) on the batch path; and a question found by its answer's words helps less than the
 * reverse. Turns are the session's messages, in memory order (`occurred_at`, then arrival); a
 * session's events are read where memory keeps them (`session_events`, and `item_placements`
 * until they are folded), so nothing more is written for them.
 */
export const NEAR_TURNS = 2;
/**
 * Stems the turns before give a message at most, the nearest turn's first: a long turn before
 * would otherwise make a row several times its own size, on the batch path.
 */
export const NEAR_STEMS = 32;

/** A message being indexed: where it stands in its session, and its stems when they are known already. */
export interface Turn {
  seq: number;
  sessionId: string;
  occurredAt: number;
  stems?: readonly string[];
}

interface Said {
  seq: number;
  session_id: string;
  occurred_at: number;
  text: string | null;
  transcript: string | null;
  [column: string]: SqlStorageValue;
}

/** A turn of a session with its stems. */
interface Placed {
  seq: number;
  occurredAt: number;
  stems: readonly string[];
}

const IS_TURN = "i.type = 'event' AND i.kind = 'message'";

/**
 * For each of `turns` (by `seq`), the distinct stems of the `NEAR_TURNS` turns before it in its
 * session, the nearest turn's first, `NEAR_STEMS` at most; none for the first turn of a session
 * (how often a word was said before matters little at the field's weight, and a shorter row
 * costs the batch less). One statement for all of them: for each, its session's folded events
 * from the `NEAR_TURNS`-th turn before it up to it, and the session's events not folded yet; a
 * text is read only for a turn whose stems are not given (a batch gives its own messages').
 */
export function wordsBefore(sql: SqlStorage, turns: readonly Turn[]): Map<number, readonly string[]> {
  if (turns.length === 0) return new Map();
  const said = sql
    .exec<Said>(
      `WITH t AS MATERIALIZED (
         SELECT value ->> 0 AS session_id, value ->> 1 AS at, value ->> 2 AS seq FROM json_each(?1)
       ),
       found AS (
         SELECT e.seq FROM t CROSS JOIN session_events e
         WHERE e.session_id = t.session_id AND e.occurred_at <= t.at AND e.occurred_at >= coalesce((
           SELECT p.occurred_at FROM session_events p CROSS JOIN items i ON i.seq = p.seq
           WHERE p.session_id = t.session_id AND p.occurred_at <= t.at AND (p.occurred_at < t.at OR p.seq < t.seq) AND ${IS_TURN}
           ORDER BY p.occurred_at DESC, p.seq DESC LIMIT 1 OFFSET ?2), -1)
         UNION
         SELECT p.seq FROM item_placements p WHERE p.session_id IN (SELECT session_id FROM t)
       )
       SELECT i.seq, i.session_id, i.occurred_at, i.body ->> '$.content.text' AS text, i.body ->> '$.content.transcript' AS transcript
       FROM found f CROSS JOIN items i ON i.seq = f.seq
       WHERE f.seq NOT IN (SELECT value FROM json_each(?3)) AND ${IS_TURN}`,
      JSON.stringify(turns.map(({ sessionId, occurredAt, seq }) => [sessionId, occurredAt, seq])),
      NEAR_TURNS - 1,
      JSON.stringify(turns.flatMap(({ seq, stems }) => (stems ? [seq] : []))),
    )
    .toArray();
  // Each session's turns in memory order: those read, and those whose stems were given.
  const bySession = new Map<string, Placed[]>();
  const place = (sessionId: string, turn: Placed) => {
    const list = bySession.get(sessionId) ?? [];
    list.push(turn);
    bySession.set(sessionId, list);
  };
  for (const row of said) {
    place(row.session_id, {
      seq: row.seq,
      occurredAt: row.occurred_at,
      stems: stemsOf(`${row.text ?? ""} ${row.transcript ?? ""}`),
    });
  }
  for (const { seq, sessionId, occurredAt, stems } of turns) if (stems) place(sessionId, { seq, occurredAt, stems });
  for (const list of bySession.values()) list.sort((a, b) => a.occurredAt - b.occurredAt || a.seq - b.seq);
  const words = new Map<number, readonly string[]>();
  for (const { seq, sessionId, occurredAt } of turns) {
    const list = bySession.get(sessionId) ?? [];
    let end = 0;
    while (end < list.length) {
      const other = list[end] as Placed;
      if (other.occurredAt > occurredAt || (other.occurredAt === occurredAt && other.seq >= seq)) break;
      end++;
    }
    const near = new Set<string>();
    for (let at = end - 1; at >= Math.max(0, end - NEAR_TURNS) && near.size < NEAR_STEMS; at--) {
      for (const stem of (list[at] as Placed).stems) {
        near.add(stem);
        if (near.size >= NEAR_STEMS) break;
      }
    }
    words.set(seq, [...near]);
  }
  return words;
}
