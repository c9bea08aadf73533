import { Problem } from "../../http/problem";
import { CANDIDATES, type Ranked, ROW_COLUMNS, type Shown, within } from "./candidates";
import { MARK_CLOSE, MARK_OPEN } from "./ranking";

/**
 * `mode: "fts5"`: FTS5 syntax in the text column of `search_index` only, its exact tokens (no
 * stems, no function words left out), ranked by FTS5's `bm25()`. A query that does not parse is
 * `422`, never a `500`.
 */
export function rankFts5(sql: SqlStorage, query: string, scope: string): Ranked[] {
  // FTS5 reads its query as a C string: a NUL would end it early, and differently once embedded.
  if (query.includes("\u0000")) throw syntaxError();
  syntaxChecked(() =>
    sql.exec("SELECT count(*) FROM (SELECT 1 FROM search_index WHERE search_index MATCH ? LIMIT 1)", query).one(),
  );
  // It parses alone, so within parentheses it stays one expression: it cannot reach past the scope.
  const expression = within(scope, `text : (${query})`);
  return syntaxChecked(() =>
    sql
      .exec<Shown & { rank: number; snippet: string }>(
        `SELECT ${ROW_COLUMNS}, bm25(search_index, 1.0, 0.0, 0.0, 0.0) AS rank,
           snippet(search_index, 0, ?, ?, '…', 24) AS snippet
         FROM search_index WHERE search_index MATCH ? ORDER BY rank LIMIT ?`,
        MARK_OPEN,
        MARK_CLOSE,
        expression,
        CANDIDATES,
      )
      .toArray(),
  ).map(({ rank, snippet, ...row }) => ({ row: { ...row, text: null }, score: Math.max(0, -rank), snippet, matched: null }));
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
