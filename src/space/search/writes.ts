import type { Derivation } from "../memory/derivation";
import { sessionSources } from "../memory/session-events";
import type { SessionRecord } from "../memory/sessions";
import { idToken } from "./tokens";

/**
 * What the search index holds (`search_index`, migration 0005): messages and transcripts as
 * they are stored, episode summaries and facts as the compiler writes them. Every row carries
 * one token each of its profile, its source and (derived rows) its session.
 */

/** A session's episode whose events came from more than one source: no vendor binding holds it. */
const MIXED_SOURCES = "mixed";

/**
 * Indexes the messages and transcripts stored since the last call, in the batch's transaction:
 * one set-based statement after the items (`search_state.indexed_seq` is where the last one
 * stopped, so a batch never indexes an item twice and never misses one).
 */
export function indexNewItems(sql: SqlStorage): void {
  sql.exec(
    `INSERT INTO search_index (text, profile, source, kind, ref_id, profile_id, occurred_at, channel, conversation_id)
     SELECT m.entry_text, replace(m.profile_id, '-', ''), replace(m.source_id, '-', ''), m.entry_kind, m.item_id,
       m.profile_id, m.occurred_at, m.channel, m.conversation_id
     FROM (
       SELECT i.*, i.body ->> '$.content.text' AS entry_text, 'message' AS entry_kind FROM items i
       WHERE i.seq > (SELECT indexed_seq FROM search_state) AND i.type = 'event' AND i.kind = 'message'
       UNION ALL
       SELECT i.*, i.body ->> '$.content.transcript', 'transcript' FROM items i
       WHERE i.seq > (SELECT indexed_seq FROM search_state) AND i.type = 'event' AND i.kind = 'message'
     ) m
     WHERE m.profile_id IS NOT NULL AND coalesce(m.entry_text, '') <> '' ORDER BY m.seq`,
  );
  sql.exec("UPDATE search_state SET indexed_seq = (SELECT coalesce(max(seq), 0) FROM items)");
}

/**
 * Replaces a session's episode summary and facts in the index, when the compiler has compiled
 * it (so they are searchable within the compile's debounce, 200 ms, of their events' batch).
 */
export function indexSession(
  sql: SqlStorage,
  session: SessionRecord,
  episodeText: string,
  derivations: readonly Derivation[],
): void {
  const sessionToken = idToken(session.sessionId);
  const stale = sql
    .exec<{ rowid: number }>("SELECT rowid FROM search_index WHERE search_index MATCH ?", `session : "${sessionToken}"`)
    .toArray()
    .map((row) => row.rowid);
  if (stale.length > 0) {
    sql.exec("DELETE FROM search_index WHERE rowid IN (SELECT value FROM json_each(?))", JSON.stringify(stale));
  }
  const conversationId = session.kind === "conversation" ? session.conversationId : null;
  const sources = sessionSources(sql, session.sessionId);
  const episodeSource = sources.length === 1 && sources[0] ? idToken(sources[0]) : MIXED_SOURCES;
  const rows: (string | number | null)[][] = [];
  if (episodeText.trim() !== "") {
    rows.push([episodeText, episodeSource, "episode", session.sessionId, session.closedAt ?? session.lastAt]);
  }
  for (const derivation of derivations) {
    if (derivation.type !== "fact") continue;
    const text = `${derivation.subject.replaceAll("_", " ")}: ${derivation.body.value}`;
    rows.push([text, idToken(derivation.sourceId), "fact", derivation.id, derivation.occurredAt]);
  }
  if (rows.length === 0) return;
  sql.exec(
    `INSERT INTO search_index (text, profile, source, session, kind, ref_id, profile_id, occurred_at, channel, conversation_id)
     SELECT r.value ->> 0, ?, r.value ->> 1, ?, r.value ->> 2, r.value ->> 3, ?, r.value ->> 4, ?, ? FROM json_each(?) r`,
    idToken(session.profileId),
    sessionToken,
    session.profileId,
    session.channel,
    conversationId,
    JSON.stringify(rows),
  );
}
