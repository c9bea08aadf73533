import type { SearchPage } from "../../contract/search";
import { decodeCursor, encodeCursor } from "../../http/cursor";
import { Problem } from "../../http/problem";
import { correctionsOf } from "../memory/corrections";
import { fingerprint } from "../memory/stable-id";
import { erasingProfiles } from "../privacy/arrivals";
import { MAX_TERMS, type Ranked, type Row } from "./candidates";
import { rankFts5 } from "./fts5";
import { rankStems } from "./plain-stems";
import { rankWords } from "./plain-words";
import { snippetOf } from "./ranking";
import { stemsReady } from "./reindex";
import type { TermCache } from "./statistics";
import { queryStems } from "./stems";
import { ftsString, idToken, queryTerms } from "./tokens";

export type { TermCache } from "./statistics";

export interface SearchRequest {
  query: string;
  mode: "plain" | "fts5";
  limit: number;
  cursor?: string | undefined;
  /** Where a bad cursor is named: `cursor` in a body, `query.cursor` in a query string. */
  cursorPlace: string;
  /** The profiles searched (a root and its members); null: the whole space. */
  members: readonly string[] | null;
  /** A vendor's sources; null: every source. */
  sources: readonly string[] | null;
}

/**
 * Full-text search over messages, transcripts, episode summaries and facts (docs/api/search.md).
 * Plain text is ranked by BM25F over its words' stems in a row and in the turns before it
 * (`plain-stems.ts`); a query of function words only, or any while older rows are being stemmed,
 * word for word by BM25 (`plain-words.ts`). `fts5` passes FTS5 syntax through (`fts5.ts`).
 */
export function search(sql: SqlStorage, request: SearchRequest, cache: TermCache): SearchPage {
  const after = cursorOf(request);
  if (request.sources !== null && request.sources.length === 0) return { results: [], next_cursor: null };
  const scope = scopeOf(request);
  const ranked =
    request.mode === "fts5"
      ? rankFts5(sql, request.query, scope)
      : rankPlain(sql, request.query, scope, cache, request.sources === null);
  ranked.sort((a, b) => compare(keyOf(a), keyOf(b)));
  const shown = withoutRepeats(withoutCorrected(sql, withoutErasing(sql, ranked)));
  const rest = after ? shown.filter((result) => compare(keyOf(result), after) > 0) : shown;
  const page = rest.slice(0, request.limit);
  const last = page.at(-1);
  const roots = rootsOf(
    sql,
    page.map(({ row }) => row.profile_id),
  );
  const texts = textsOf(
    sql,
    page.filter(({ row, snippet }) => typeof snippet !== "string" && row.text === null).map(({ row }) => row.rowid),
  );
  return {
    results: page.map(({ row, score, snippet }) => ({
      kind: row.kind,
      id: row.ref_id,
      profile_id: roots.get(row.profile_id) ?? row.profile_id,
      occurred_at: new Date(row.occurred_at).toISOString(),
      channel: row.channel,
      conversation_id: row.conversation_id,
      snippet: typeof snippet === "string" ? snippet : snippetOf(row.text ?? texts.get(row.rowid) ?? "", snippet),
      score,
    })),
    next_cursor:
      rest.length > request.limit && last ? encodeCursor(JSON.stringify({ ...keyOf(last), f: fingerprintOf(request) })) : null,
  };
}

/**
 * Where a result stands in a page's order, as a cursor carries it: score (best first), then
 * `occurred_at` (newest first), then rowid (the latest indexed first), so no two rows share one.
 */
interface Key {
  s: number;
  t: number;
  r: number;
}

const keyOf = ({ score, row }: Ranked): Key => ({ s: score, t: row.occurred_at, r: row.rowid });

/** Negative when `a` comes before `b` in a page. */
const compare = (a: Key, b: Key) => b.s - a.s || b.t - a.t || b.r - a.r;

/**
 * Plain text: by stems once every row has them and the query has a word that is not a function
 * word; else word for word. `near`: whether the turns before a row count (never for a search
 * restricted to sources: another source may have written them).
 */
function rankPlain(sql: SqlStorage, query: string, scope: string, cache: TermCache, near: boolean): Ranked[] {
  const stems = queryStems(query, MAX_TERMS);
  if (stems.length > 0 && stemsReady(sql)) return rankStems(sql, stems, scope, cache, near);
  return rankWords(sql, queryTerms(query, MAX_TERMS), scope, cache);
}

/**
 * The position a cursor names, when it was issued for this search (its fingerprint); a cursor of
 * another search would filter by a score of another ranking, and is refused.
 */
function cursorOf(request: SearchRequest): Key | null {
  const refused = (reason: string) => new Problem("invalid_input", `${request.cursorPlace}: ${reason}`);
  let after: string | null;
  try {
    after = decodeCursor(request.cursor);
  } catch {
    throw refused("not_issued_by_this_service");
  }
  if (after === null) return null;
  let parsed: { s?: unknown; t?: unknown; r?: unknown; f?: unknown };
  try {
    parsed = JSON.parse(after);
  } catch {
    throw refused("not_issued_by_this_service");
  }
  const { s, t, r, f } = parsed;
  if (typeof s !== "number" || !Number.isFinite(t) || !Number.isInteger(r) || typeof f !== "string") {
    throw refused("not_issued_by_this_service");
  }
  if (f !== fingerprintOf(request)) throw refused("not_issued_for_this_search");
  return { s, t: t as number, r: r as number };
}

/**
 * What a search's cursor is bound to: its mode, its query as written, the profile searched (the
 * root, whose members it reads) or none, and the sources it is restricted to or none. A hash of
 * them (cyrb128, 64 of its bits), so that a cursor does not carry a query's words as written (a
 * hash, not a secret: a short query can be found again from it by trying). The limit is not in
 * it: a client may page on with another page size.
 */
function fingerprintOf(request: SearchRequest): string {
  const sources = request.sources === null ? null : [...request.sources].sort();
  return fingerprint(JSON.stringify([request.mode, request.query, request.members?.[0] ?? null, sources])).slice(0, 16);
}

/**
 * The FTS5 expression that keeps a search to its profiles and sources: a MATCH on one token per
 * row, in the `profile` and `source` columns both tables have.
 */
function scopeOf(request: SearchRequest): string {
  const parts: string[] = [];
  const any = (ids: readonly string[]) => `(${ids.map((id) => ftsString(idToken(id))).join(" OR ")})`;
  if (request.members !== null) parts.push(`profile : ${any(request.members)}`);
  if (request.sources !== null) parts.push(`source : ${any(request.sources)}`);
  return parts.join(" AND ");
}

/**
 * Leaves out an episode summary that only repeats its conversation's messages among the results:
 * a summary quotes its session's request and resolution, so when every query term it holds is
 * held by those messages too, it would show the same turns a second time.
 */
function withoutRepeats(ranked: readonly Ranked[]): Ranked[] {
  const conversationOf = (row: Row) => `${row.profile_id} ${row.channel} ${row.conversation_id}`;
  const said = new Map<string, Set<string>>();
  for (const { row, matched } of ranked) {
    if (matched === null || row.conversation_id === null || (row.kind !== "message" && row.kind !== "transcript")) continue;
    const terms = said.get(conversationOf(row)) ?? new Set<string>();
    for (const term of matched) terms.add(term);
    said.set(conversationOf(row), terms);
  }
  return ranked.filter(({ row, matched }) => {
    if (matched === null || row.kind !== "episode" || row.conversation_id === null) return true;
    const terms = said.get(conversationOf(row));
    return terms === undefined || [...matched].some((term) => !terms.has(term));
  });
}

/** The texts of a page's rows that the ranking did not read (stems rank without them). */
function textsOf(sql: SqlStorage, rowids: readonly number[]): Map<number, string> {
  if (rowids.length === 0) return new Map();
  const rows = sql
    .exec<{ rowid: number; text: string }>(
      "SELECT i.rowid, i.text FROM json_each(?) j CROSS JOIN search_index i ON i.rowid = j.value",
      JSON.stringify(rowids),
    )
    .toArray();
  return new Map(rows.map((row) => [row.rowid, row.text]));
}

/** Rows of a subject whose erasure is under way: the erasure deletes them in slices, and none is shown meanwhile. */
function withoutErasing(sql: SqlStorage, ranked: Ranked[]): Ranked[] {
  const erasing = erasingProfiles(sql);
  return erasing.size === 0 ? ranked : ranked.filter(({ row }) => !erasing.has(row.profile_id));
}

/**
 * Facts that feedback retracted or corrected: the index keeps a fact as it was stated, and a
 * result carries no status, so such a row would show a value memory no longer shows. The
 * messages that stated it stay (what was said was said); the latest feedback on a fact wins, as
 * in memory (`corrections`).
 */
function withoutCorrected(sql: SqlStorage, ranked: Ranked[]): Ranked[] {
  const facts = ranked.filter(({ row }) => row.kind === "fact").map(({ row }) => row.ref_id);
  if (facts.length === 0) return ranked;
  const corrected = correctionsOf(sql, facts);
  if (corrected.size === 0) return ranked;
  return ranked.filter(({ row }) => {
    const action = row.kind === "fact" ? corrected.get(row.ref_id)?.action : undefined;
    return action !== "retract_fact" && action !== "correct_fact";
  });
}

/** The profile that answers for each profile id now. */
function rootsOf(sql: SqlStorage, profileIds: readonly string[]): Map<string, string> {
  if (profileIds.length === 0) return new Map();
  const rows = sql
    .exec<{ profile_id: string; root_id: string }>(
      "SELECT p.profile_id, p.root_id FROM json_each(?) j CROSS JOIN profiles p WHERE p.profile_id = j.value",
      JSON.stringify([...new Set(profileIds)]),
    )
    .toArray();
  return new Map(rows.map((row) => [row.profile_id, row.root_id]));
}
