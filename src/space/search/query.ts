import type { SearchPage, SearchResult } from "../../contract/search";
import { decodeCursor, encodeCursor } from "../../http/cursor";
import { Problem } from "../../http/problem";
import { bm25, type Corpus, idf, MARK_CLOSE, MARK_OPEN, snippetOf } from "./ranking";
import { ftsString, idToken, queryTerms, type Token, tokensOf } from "./tokens";

/** Terms of a plain query that are looked up; the rest of a longer query is ignored. */
export const MAX_TERMS = 32;
/** A term in at most this many rows is rare: its rows are all candidates, and its count is exact. */
export const RARE_ROWS = 500;
/**
 * Rows one plain search ranks at most: rows with a rare term first, then the newest rows with
 * the others. Reading a row's text is most of what a search costs (about 20 µs a row), so this bounds it.
 */
export const CANDIDATES = 300;

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

interface Row {
  rowid: number;
  text: string;
  kind: SearchResult["kind"];
  ref_id: string;
  profile_id: string;
  occurred_at: number;
  channel: string | null;
  conversation_id: string | null;
  [column: string]: SqlStorageValue;
}

interface Ranked {
  row: Row;
  score: number;
  snippet: () => string;
  /** The query terms the row holds (plain text); null: FTS5 syntax, whose matches are FTS5's. */
  matched: ReadonlySet<string> | null;
}

const COLUMNS = "rowid, text, kind, ref_id, profile_id, occurred_at, channel, conversation_id";

/** Document frequencies of frequent terms, as estimated, with the index size they were estimated at. */
export type TermCache = Map<string, { rows: number; documents: number }>;
const TERM_CACHE_SIZE = 4_096;

/**
 * Full-text search over messages, transcripts, episode summaries and facts (README "Search").
 * Plain text is ranked by BM25 over its terms; `fts5` passes FTS5 syntax through, searched in
 * the text column only, ranked by FTS5's `bm25()`.
 */
export function search(sql: SqlStorage, request: SearchRequest, cache: TermCache): SearchPage {
  const after = cursorOf(request);
  if (request.sources !== null && request.sources.length === 0) return { results: [], next_cursor: null };
  const scope = scopeOf(request);
  const ranked = request.mode === "fts5" ? rankFts5(sql, request.query, scope) : rankPlain(sql, request.query, scope, cache);
  ranked.sort((a, b) => b.score - a.score || b.row.rowid - a.row.rowid);
  const shown = withoutRepeats(ranked);
  const rest = after ? shown.filter(({ score, row }) => score < after.s || (score === after.s && row.rowid < after.r)) : shown;
  const page = rest.slice(0, request.limit);
  const last = page.at(-1);
  const roots = rootsOf(
    sql,
    page.map(({ row }) => row.profile_id),
  );
  return {
    results: page.map(({ row, score, snippet }) => ({
      kind: row.kind,
      id: row.ref_id,
      profile_id: roots.get(row.profile_id) ?? row.profile_id,
      occurred_at: new Date(row.occurred_at).toISOString(),
      channel: row.channel,
      conversation_id: row.conversation_id,
      snippet: snippet(),
      score,
    })),
    next_cursor: rest.length > request.limit && last ? encodeCursor(JSON.stringify({ s: last.score, r: last.row.rowid })) : null,
  };
}

function cursorOf(request: SearchRequest): { s: number; r: number } | null {
  const refused = () => new Problem("invalid_input", `${request.cursorPlace}: not_issued_by_this_service`);
  let after: string | null;
  try {
    after = decodeCursor(request.cursor);
  } catch {
    throw refused();
  }
  if (after === null) return null;
  try {
    const parsed = JSON.parse(after) as { s?: unknown; r?: unknown };
    if (typeof parsed.s === "number" && Number.isInteger(parsed.r)) return { s: parsed.s, r: parsed.r as number };
  } catch {
    // a cursor we did not write
  }
  throw refused();
}

/** The FTS5 expression that keeps a search to its profiles and sources: a MATCH on one token per row. */
function scopeOf(request: SearchRequest): string {
  const parts: string[] = [];
  const any = (ids: readonly string[]) => `(${ids.map((id) => ftsString(idToken(id))).join(" OR ")})`;
  if (request.members !== null) parts.push(`profile : ${any(request.members)}`);
  if (request.sources !== null) parts.push(`source : ${any(request.sources)}`);
  return parts.join(" AND ");
}

const within = (scope: string, expression: string) => (scope === "" ? expression : `${scope} AND ${expression}`);

/**
 * Plain text: its terms, any of which may match, ranked by BM25. A scope of at most `CANDIDATES`
 * rows (one customer's history, as a rule) is ranked among itself; anything larger with each
 * term's document frequency over the whole index.
 */
function rankPlain(sql: SqlStorage, query: string, scope: string, cache: TermCache): Ranked[] {
  const terms = queryTerms(query, MAX_TERMS);
  if (terms.length === 0) return [];
  const local = scopeCorpus(sql, scope);
  return local ? rankWithinScope(sql, terms, scope, local) : rankWithinSpace(sql, terms, scope, cache);
}

/**
 * A small scope: every row of it with a term is a candidate, and BM25's statistics (rows,
 * average length, each term's rows) are the scope's own, so what is rare within one
 * customer's history is what tells its rows apart.
 */
function rankWithinScope(sql: SqlStorage, terms: readonly string[], scope: string, corpus: Corpus): Ranked[] {
  const expression = within(scope, `text : (${terms.map(ftsString).join(" OR ")})`);
  const rows = sql
    .exec<Row>(`SELECT ${COLUMNS} FROM search_index WHERE search_index MATCH ? LIMIT ?`, expression, CANDIDATES)
    .toArray();
  const candidates = rows.map((row) => ({ row, tokens: tokensOf(row.text) }));
  const documents = documentsHolding(
    terms,
    candidates.map(({ tokens }) => tokens),
  );
  const weights = new Map(terms.map((term) => [term, idf(corpus, documents.get(term) ?? 0)]));
  return candidates.map(({ row, tokens }) => scored(row, tokens, weights, corpus));
}

/** How many of the texts hold each term. */
function documentsHolding(terms: readonly string[], texts: readonly (readonly Token[])[]): Map<string, number> {
  const documents = new Map(terms.map((term) => [term, 0]));
  for (const tokens of texts) {
    for (const term of new Set(tokens.map((token) => token.term))) {
      const count = documents.get(term);
      if (count !== undefined) documents.set(term, count + 1);
    }
  }
  return documents;
}

/**
 * The whole space, or a scope too large to count: bounded work whatever the text. Rows with rare
 * terms come first; frequent ones add their newest rows up to `CANDIDATES` (their idf is low: a
 * row with only them seldom outranks one with a rare term, and among themselves the newest go first).
 */
function rankWithinSpace(sql: SqlStorage, terms: readonly string[], scope: string, cache: TermCache): Ranked[] {
  const corpus = corpusOf(sql);
  if (corpus.rows === 0) return [];
  const frequencies = terms.map((term) => ({ term, documents: documentFrequency(sql, term, corpus, cache) }));
  const rare = frequencies.filter((entry) => entry.documents <= RARE_ROWS).map((entry) => entry.term);
  const frequent = frequencies.filter((entry) => entry.documents > RARE_ROWS).map((entry) => entry.term);
  const rows = new Map<number, Row>();
  for (const group of [rare, frequent]) {
    if (group.length === 0 || rows.size >= CANDIDATES) continue;
    const expression = within(scope, `text : (${group.map(ftsString).join(" OR ")})`);
    for (const row of sql.exec<Row>(
      `SELECT ${COLUMNS} FROM search_index WHERE search_index MATCH ? ORDER BY rowid DESC LIMIT ?`,
      expression,
      CANDIDATES - rows.size,
    )) {
      rows.set(row.rowid, row);
    }
  }
  const weights = new Map(frequencies.map(({ term, documents }) => [term, idf(corpus, documents)]));
  return [...rows.values()].map((row) => scored(row, tokensOf(row.text), weights, corpus));
}

function scored(row: Row, tokens: readonly Token[], weights: ReadonlyMap<string, number>, corpus: Corpus): Ranked {
  const matched = new Set(tokens.map((token) => token.term).filter((term) => weights.has(term)));
  return { row, score: bm25(tokens, weights, corpus), snippet: () => snippetOf(row.text, new Set(weights.keys())), matched };
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

/**
 * The rows of a scope and their average text length, when it holds at most `CANDIDATES` rows;
 * null for the whole space or a larger scope. Lengths come from FTS5's own per-row sizes
 * (`search_index_docsize`: a varint per column, the text's first), so no text is read.
 */
function scopeCorpus(sql: SqlStorage, scope: string): Corpus | null {
  if (scope === "") return null;
  const sizes = sql
    .exec<{ sz: ArrayBuffer }>(
      `SELECT d.sz FROM (SELECT rowid FROM search_index WHERE search_index MATCH ? LIMIT ?) s
       JOIN search_index_docsize d ON d.id = s.rowid`,
      scope,
      CANDIDATES + 1,
    )
    .toArray();
  if (sizes.length === 0 || sizes.length > CANDIDATES) return null;
  const tokens = sizes.reduce((sum, { sz }) => sum + varintsOf(sz)(), 0);
  return { rows: sizes.length, averageLength: tokens / sizes.length };
}

/**
 * How many rows hold a term: counted when it is rare; else estimated from how recent its
 * `RARE_ROWS + 1`-th newest row is (a term in a tenth of the rows reaches back over ten times as
 * many rowids), and kept until the index grows by a tenth. Never a walk of a long list.
 */
function documentFrequency(sql: SqlStorage, term: string, corpus: Corpus & { lastRowid: number }, cache: TermCache): number {
  const cached = cache.get(term);
  if (cached && corpus.rows <= cached.rows * 1.1) return cached.documents;
  const newest = sql
    .exec<{ rowid: number }>(
      "SELECT rowid FROM search_index WHERE search_index MATCH ? ORDER BY rowid DESC LIMIT ?",
      `text : ${ftsString(term)}`,
      RARE_ROWS + 1,
    )
    .toArray();
  if (newest.length <= RARE_ROWS) return newest.length;
  const span = corpus.lastRowid - (newest.at(-1)?.rowid ?? 0) + 1;
  const documents = Math.min(corpus.rows, Math.max(RARE_ROWS + 1, Math.round((newest.length * corpus.lastRowid) / span)));
  if (cache.size >= TERM_CACHE_SIZE) cache.clear();
  cache.set(term, { rows: corpus.rows, documents });
  return documents;
}

/**
 * Rows and the average text length, from the totals FTS5 keeps itself (its "averages" record:
 * varints of the row count, then of each column's token count).
 */
function corpusOf(sql: SqlStorage): Corpus & { lastRowid: number } {
  const block = sql.exec<{ block: ArrayBuffer }>("SELECT block FROM search_index_data WHERE id = 1").toArray()[0]?.block;
  if (!block) return { rows: 0, averageLength: 0, lastRowid: 0 };
  const varint = varintsOf(block);
  const rows = varint();
  const textTokens = varint();
  const lastRowid = sql.exec<{ rowid: number }>("SELECT rowid FROM search_index ORDER BY rowid DESC LIMIT 1").toArray()[0]?.rowid;
  return { rows, averageLength: rows > 0 ? textTokens / rows : 0, lastRowid: lastRowid ?? 0 };
}

/** Reads SQLite varints from a blob one after the other (FTS5's records hold their counts so). */
function varintsOf(block: ArrayBuffer): () => number {
  const bytes = new Uint8Array(block);
  let at = 0;
  return () => {
    let value = 0;
    for (let i = 0; i < 9 && at < bytes.length; i++) {
      const byte = bytes[at++] ?? 0;
      if (i === 8) return value * 256 + byte;
      value = value * 128 + (byte & 0x7f);
      if (byte < 0x80) break;
    }
    return value;
  };
}

/** FTS5 syntax, in the text column only: a query that does not parse is `422`, never a `500`. */
function rankFts5(sql: SqlStorage, query: string, scope: string): Ranked[] {
  // FTS5 reads its query as a C string: a NUL would end it early, and differently once embedded.
  if (query.includes("\u0000")) throw syntaxError();
  syntaxChecked(() =>
    sql.exec("SELECT count(*) FROM (SELECT 1 FROM search_index WHERE search_index MATCH ? LIMIT 1)", query).one(),
  );
  // It parses alone, so within parentheses it stays one expression: it cannot reach past the scope.
  const expression = within(scope, `text : (${query})`);
  return syntaxChecked(() =>
    sql
      .exec<Row & { rank: number; snippet: string }>(
        `SELECT ${COLUMNS}, bm25(search_index, 1.0, 0.0, 0.0, 0.0) AS rank,
           snippet(search_index, 0, ?, ?, '…', 24) AS snippet
         FROM search_index WHERE search_index MATCH ? ORDER BY rank LIMIT ?`,
        MARK_OPEN,
        MARK_CLOSE,
        expression,
        CANDIDATES,
      )
      .toArray(),
  ).map((row) => ({ row, score: Math.max(0, -row.rank), snippet: () => row.snippet, matched: null }));
}

const syntaxError = () => new Problem("invalid_input", "query: fts5_syntax_error");

/** Runs a statement with the caller's FTS5 expression: what FTS5 refuses in it is a `422`, anything else stays a 500. */
function syntaxChecked<T>(statement: () => T): T {
  try {
    return statement();
  } catch (error) {
    if (isQueryError(error)) throw syntaxError();
    throw error;
  }
}

function isQueryError(error: unknown): boolean {
  return error instanceof Error && /fts5: |unknown special query|no such column|unterminated string/.test(error.message);
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
