import type { Derivation } from "../memory/derivation";
import type { SessionRecord } from "../memory/sessions";
import { NEAR_TURNS, rememberTurns } from "./neighbours";
import { stemsOf } from "./stems";
import { ftsString, idToken } from "./tokens";

/**
 * What the search index holds: `search_index` (migration 0005), messages and transcripts as
 * they are stored, episode summaries and facts as the compiler writes them, each with one token
 * each of its profile, its source and (derived rows) its session; and `search_stems` (migration
 * 0018), the same row (same rowid) as plain search reads it: its stems without function words,
 * and its profile and source tokens; and `search_turns` (migrations 0022 and 0037), each turn's
 * stems and first row by `seq`, where a search finds the turns around a message (neighbours.ts).
 * `search_stems.near` held the stems of the turns before a row until migration 0037; rows
 * written since leave it empty, and no search reads it.
 */

/** A session's episode whose events came from more than one source: no vendor binding holds it. */
const MIXED_SOURCES = "mixed";

/** One row of both tables, before its rowid is given. */
interface IndexRow {
  text: string;
  /** Its text's stems (`stemsOf`). */
  stems: readonly string[];
  profileToken: string;
  sourceToken: string;
  sessionToken: string | null;
  kind: "message" | "transcript" | "episode" | "fact";
  refId: string;
  profileId: string;
  occurredAt: number;
  channel: string | null;
  conversationId: string | null;
}

/** A message a batch stored, as the index takes it. */
export interface StoredMessage {
  seq: number;
  itemId: string;
  profileId: string;
  sourceId: string;
  sessionId: string | null;
  occurredAt: number;
  channel: string | null;
  conversationId: string | null;
  text: string | null;
  transcript: string | null;
}

/**
 * Indexes the messages and transcripts a batch stored (in `seq` order), in its transaction: a
 * message with both a text and a transcript is two rows, one after the other. A message in a
 * session is also remembered as a turn (`search_turns`), where a search finds its words and rows.
 */
export function indexMessages(sql: SqlStorage, messages: readonly StoredMessage[]): void {
  const first = nextRowid(sql);
  const rows: IndexRow[] = [];
  const turns: { seq: number; stems: readonly string[]; row: number }[] = [];
  for (const message of messages) {
    if (!message.text && !message.transcript) continue;
    const text = message.text ? stemsOf(message.text) : [];
    const transcript = message.transcript ? stemsOf(message.transcript) : [];
    if (message.sessionId !== null) turns.push({ seq: message.seq, stems: [...text, ...transcript], row: first + rows.length });
    const entry = {
      profileToken: idToken(message.profileId),
      sourceToken: idToken(message.sourceId),
      sessionToken: null,
      refId: message.itemId,
      profileId: message.profileId,
      occurredAt: message.occurredAt,
      channel: message.channel,
      conversationId: message.conversationId,
    };
    if (message.text) rows.push({ ...entry, text: message.text, stems: text, kind: "message" });
    if (message.transcript) rows.push({ ...entry, text: message.transcript, stems: transcript, kind: "transcript" });
  }
  rememberTurns(sql, turns);
  insertRows(sql, rows, first);
}

/**
 * After a session's oldest turns were erased (retention), rows indexed before migration 0037 may
 * still hold the erased turns' words as stored near words (`search_stems.near`): the first
 * `NEAR_TURNS` turns left have theirs emptied, so that no word of an erased turn stays in a kept
 * row. The caller merges the index's segments afterwards, as after any delete.
 */
export function forgetNearWords(sql: SqlStorage, sessionId: string): void {
  const first = sql
    .exec<{ item_id: string; profile_id: string | null }>(
      `SELECT i.item_id, i.profile_id FROM session_events e
       CROSS JOIN search_turns t ON t.seq = e.seq CROSS JOIN items i ON i.seq = e.seq
       WHERE e.session_id = ? ORDER BY e.occurred_at, e.seq LIMIT ?`,
      sessionId,
      NEAR_TURNS,
    )
    .toArray();
  const profiles = [...new Set(first.map((turn) => turn.profile_id).filter((id) => id !== null))];
  if (profiles.length === 0) return;
  sql.exec(
    `UPDATE search_stems SET near = '' WHERE near <> '' AND rowid IN (
       SELECT rowid FROM search_index WHERE search_index MATCH ? AND kind IN ('message', 'transcript')
         AND ref_id IN (SELECT value FROM json_each(?)))`,
    `profile : (${profiles.map((id) => ftsString(idToken(id))).join(" OR ")})`,
    JSON.stringify(first.map((turn) => turn.item_id)),
  );
}

/** A compiled session as the index takes it: its episode's searchable text, its derivations, its events' sources. */
export interface CompiledSession {
  session: SessionRecord;
  episodeText: string;
  derivations: readonly Derivation[];
  sources: readonly string[];
}

/**
 * Replaces the episode summaries and facts of the sessions a compile slice compiled (so they are
 * searchable within the compile's debounce, 200 ms, of their events' batch), in four statements
 * for all of them: one read of their rows, a delete from each table, the inserts. Rows the
 * compile writes as they were stay: a session compiled again after a late "thanks" rewrites no
 * row of an index whose deletes are its dearest writes.
 */
export function indexSessions(sql: SqlStorage, compiled: readonly CompiledSession[]): void {
  if (compiled.length === 0) return;
  const rows = compiled.flatMap(derivedRows);
  const stale = new Map<string, number>();
  const sessions = compiled.map(({ session }) => ftsString(idToken(session.sessionId))).join(" OR ");
  for (const row of sql.exec<IndexedRow>(
    `SELECT rowid, text, profile, source, session, kind, ref_id, profile_id, occurred_at, channel, conversation_id
     FROM search_index WHERE search_index MATCH ?`,
    `session : (${sessions})`,
  )) {
    stale.set(
      indexedAs({
        text: row.text,
        profileToken: row.profile,
        sourceToken: row.source,
        sessionToken: row.session,
        kind: row.kind,
        refId: row.ref_id,
        profileId: row.profile_id,
        occurredAt: row.occurred_at,
        channel: row.channel,
        conversationId: row.conversation_id,
      }),
      row.rowid,
    );
  }
  const fresh = rows.filter((row) => !stale.delete(indexedAs(row)));
  if (stale.size > 0) {
    for (const table of ["search_index", "search_stems"]) {
      sql.exec(`DELETE FROM ${table} WHERE rowid IN (SELECT value FROM json_each(?))`, JSON.stringify([...stale.values()]));
    }
  }
  insertRows(
    sql,
    fresh.map((row) => ({ ...row, stems: stemsOf(row.text) })),
  );
}

/** The rows one compiled session has in the index: its episode's, and one per fact. */
function derivedRows({ session, episodeText, derivations, sources }: CompiledSession): Omit<IndexRow, "stems">[] {
  const sessionToken = idToken(session.sessionId);
  const conversationId = session.kind === "conversation" ? session.conversationId : null;
  const derived = {
    profileToken: idToken(session.profileId),
    sessionToken,
    profileId: session.profileId,
    channel: session.channel,
    conversationId,
  };
  const rows: Omit<IndexRow, "stems">[] = [];
  if (episodeText.trim() !== "") {
    rows.push({
      ...derived,
      text: episodeText,
      sourceToken: sources.length === 1 && sources[0] ? idToken(sources[0]) : MIXED_SOURCES,
      kind: "episode",
      refId: session.sessionId,
      occurredAt: session.closedAt ?? session.lastAt,
    });
  }
  for (const derivation of derivations) {
    if (derivation.type !== "fact") continue;
    rows.push({
      ...derived,
      text: `${derivation.subject.replaceAll("_", " ")}: ${derivation.body.value}`,
      sourceToken: idToken(derivation.sourceId),
      kind: "fact",
      refId: derivation.id,
      occurredAt: derivation.occurredAt,
    });
  }
  return rows;
}

/** A derived row of `search_index` as read back. */
interface IndexedRow {
  rowid: number;
  text: string;
  profile: string;
  source: string;
  session: string | null;
  kind: IndexRow["kind"];
  ref_id: string;
  profile_id: string;
  occurred_at: number;
  channel: string | null;
  conversation_id: string | null;
  [column: string]: SqlStorageValue;
}

/** A row's `search_index` columns after its rowid, in the table's order. */
const columnsOf = (row: Omit<IndexRow, "stems">) => [
  row.text,
  row.profileToken,
  row.sourceToken,
  row.sessionToken,
  row.kind,
  row.refId,
  row.profileId,
  row.occurredAt,
  row.channel,
  row.conversationId,
];

/** What tells a derived row from another: every column. */
const indexedAs = (row: Omit<IndexRow, "stems">) => JSON.stringify(columnsOf(row));

/** The rowid the next row of both tables takes: after the last one. */
function nextRowid(sql: SqlStorage): number {
  return (sql.exec<{ rowid: number }>("SELECT rowid FROM search_index ORDER BY rowid DESC LIMIT 1").toArray()[0]?.rowid ?? 0) + 1;
}

/**
 * Adds rows to both tables under the same rowids, from `first` (`nextRowid`): each table's rowid
 * is given, so the stems row of a text is always the row of the same rowid.
 */
function insertRows(sql: SqlStorage, rows: readonly IndexRow[], first = nextRowid(sql)): void {
  if (rows.length === 0) return;
  sql.exec(
    `INSERT INTO search_index (rowid, text, profile, source, session, kind, ref_id, profile_id, occurred_at, channel, conversation_id)
     SELECT r.value ->> 0, r.value ->> 1, r.value ->> 2, r.value ->> 3, r.value ->> 4, r.value ->> 5, r.value ->> 6,
       r.value ->> 7, r.value ->> 8, r.value ->> 9, r.value ->> 10 FROM json_each(?) r`,
    JSON.stringify(rows.map((row, i) => [first + i, ...columnsOf(row)])),
  );
  stemRows(
    sql,
    rows.map((row, i) => ({ rowid: first + i, stems: row.stems, profile: row.profileToken, source: row.sourceToken })),
  );
}

/** A row of `search_stems`: the stems of the `search_index` row of the same rowid. */
export interface StemsRow {
  rowid: number;
  stems: readonly string[];
  profile: string;
  source: string;
}

/**
 * Writes rows of `search_stems` (their `near` empty). `replace`: a rowid already there is
 * replaced (the reindex may meet a row a batch wrote); batches write only new rowids, and skip
 * the look-up.
 */
export function stemRows(sql: SqlStorage, rows: readonly StemsRow[], replace = false): void {
  if (rows.length === 0) return;
  sql.exec(
    `INSERT ${replace ? "OR REPLACE " : ""}INTO search_stems (rowid, stems, near, profile, source)
     SELECT r.value ->> 0, r.value ->> 1, '', r.value ->> 2, r.value ->> 3 FROM json_each(?) r`,
    JSON.stringify(rows.map((row) => [row.rowid, row.stems.join(" "), row.profile, row.source])),
  );
}
