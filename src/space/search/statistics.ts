import { ftsString } from "./tokens";

/**
 * What BM25 needs of an index, read from what FTS5 keeps itself, never by walking a long list:
 * row and token totals (its "averages" record), per-row sizes (`_docsize`), and how many rows
 * hold a term (counted when rare, else estimated). Both search tables are read so:
 * `search_index` (word for word) and `search_stems` (stems, migration 0018).
 */
export type SearchTable = "search_index" | "search_stems";

/** A term in at most this many rows is rare: its rows are all candidates, and its count is exact. */
export const RARE_ROWS = 500;

/** Document frequencies of frequent terms, as estimated, with the index size they were estimated at. */
export type TermCache = Map<string, { rows: number; documents: number }>;
const TERM_CACHE_SIZE = 4_096;

export interface Totals {
  rows: number;
  /** Tokens of each indexed column, in the table's column order. */
  tokens: number[];
  lastRowid: number;
}

/**
 * Rows and each column's token total, from FTS5's "averages" record (varints of the row count,
 * then of each column's token count).
 */
export function totalsOf(sql: SqlStorage, table: SearchTable): Totals {
  const block = sql.exec<{ block: ArrayBuffer }>(`SELECT block FROM ${table}_data WHERE id = 1`).toArray()[0]?.block;
  if (!block) return { rows: 0, tokens: [], lastRowid: 0 };
  const varint = varintsOf(block);
  const rows = varint();
  const tokens: number[] = [];
  for (let column = 0; column < COLUMNS[table]; column++) tokens.push(varint());
  const lastRowid = sql.exec<{ rowid: number }>(`SELECT rowid FROM ${table} ORDER BY rowid DESC LIMIT 1`).toArray()[0]?.rowid;
  return { rows, tokens, lastRowid: lastRowid ?? 0 };
}

/** Indexed columns of each table (text, profile, source, session; stems, near, profile, source). */
const COLUMNS: Record<SearchTable, number> = { search_index: 4, search_stems: 4 };

/**
 * Each column's size in each row of a scope (an FTS5 expression), when it holds at most `max`
 * rows; null for a larger scope. From FTS5's per-row sizes (`_docsize`: a varint per column), so
 * no text is read.
 */
export function scopeSizes(sql: SqlStorage, table: SearchTable, scope: string, max: number): number[][] | null {
  const rows = sql
    .exec<{ sz: ArrayBuffer }>(
      `SELECT d.sz FROM (SELECT rowid FROM ${table} WHERE ${table} MATCH ? LIMIT ?) s
       JOIN ${table}_docsize d ON d.id = s.rowid`,
      scope,
      max + 1,
    )
    .toArray();
  if (rows.length === 0 || rows.length > max) return null;
  return rows.map(({ sz }) => {
    const varint = varintsOf(sz);
    return Array.from({ length: COLUMNS[table] }, () => varint());
  });
}

/**
 * How many rows hold a term (`match`, an FTS5 expression naming its columns): counted when it is
 * rare; else estimated from how recent its `RARE_ROWS + 1`-th newest row is (a term in a tenth of
 * the rows reaches back over ten times as many rowids), and kept (by its expression, which
 * names its table's columns) until the index grows by a tenth. Never a walk of a long list.
 */
export function documentFrequency(sql: SqlStorage, table: SearchTable, match: string, totals: Totals, cache: TermCache): number {
  const cached = cache.get(match);
  if (cached && totals.rows <= cached.rows * 1.1) return cached.documents;
  const newest = sql
    .exec<{ rowid: number }>(
      `SELECT rowid FROM ${table} WHERE ${table} MATCH ? ORDER BY rowid DESC LIMIT ?`,
      match,
      RARE_ROWS + 1,
    )
    .toArray();
  if (newest.length <= RARE_ROWS) return newest.length;
  const span = totals.lastRowid - (newest.at(-1)?.rowid ?? 0) + 1;
  const documents = Math.min(totals.rows, Math.max(RARE_ROWS + 1, Math.round((newest.length * totals.lastRowid) / span)));
  if (cache.size >= TERM_CACHE_SIZE) cache.clear();
  cache.set(match, { rows: totals.rows, documents });
  return documents;
}

/** How many rows match an FTS5 expression, counted up to `max + 1` (more than `max`: `max + 1`). */
export function rowsMatching(sql: SqlStorage, table: SearchTable, match: string, max: number): number {
  return (
    sql
      .exec<{ rows: number }>(
        `SELECT count(*) AS rows FROM (SELECT rowid FROM ${table} WHERE ${table} MATCH ? LIMIT ?)`,
        match,
        max + 1,
      )
      .toArray()[0]?.rows ?? 0
  );
}

/** The FTS5 expression of one term in some columns: `{stems near} : "term"`. */
export const inColumns = (columns: string, term: string) => `${columns} : ${ftsString(term)}`;

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
