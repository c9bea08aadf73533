import { CANDIDATES, candidateGroups, type Ranked, ROW_COLUMNS, type Row, within } from "./candidates";
import { bm25, type Corpus, idf } from "./ranking";
import { documentFrequency, inColumns, scopeSizes, type TermCache, totalsOf } from "./statistics";
import { ftsString, type Token, tokensOf } from "./tokens";

/**
 * Plain text word for word (`search_index.text`, docs/api/search.md): a query made only of function
 * words, and every plain query while a reindex stems older rows. Its terms, any of which may
 * match, ranked by BM25. A scope of at most `CANDIDATES` rows (one customer's history, as a rule)
 * is ranked among itself; anything larger with each term's document frequency over the whole index.
 */
export function rankWords(sql: SqlStorage, terms: readonly string[], scope: string, cache: TermCache): Ranked[] {
  if (terms.length === 0) return [];
  const sizes = scope === "" ? null : scopeSizes(sql, "search_index", scope, CANDIDATES);
  if (!sizes) return rankWithinSpace(sql, terms, scope, cache);
  const corpus = { rows: sizes.length, averageLength: sizes.reduce((sum, [text = 0]) => sum + text, 0) / sizes.length };
  return rankWithinScope(sql, terms, scope, corpus);
}

const TEXT_ROWS = `SELECT ${ROW_COLUMNS}, text FROM search_index WHERE search_index MATCH ?`;

/**
 * A small scope: every row of it with a term is a candidate, and BM25's statistics (rows,
 * average length, each term's rows) are the scope's own, so what is rare within one
 * customer's history is what tells its rows apart.
 */
function rankWithinScope(sql: SqlStorage, terms: readonly string[], scope: string, corpus: Corpus): Ranked[] {
  const expression = within(scope, `text : (${terms.map(ftsString).join(" OR ")})`);
  const rows = sql.exec<Row & { text: string }>(`${TEXT_ROWS} LIMIT ?`, expression, CANDIDATES).toArray();
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
 * terms come first, the rarest's first (`candidateGroups`); frequent ones add their newest rows up to `CANDIDATES` (their idf is low: a
 * row with only them seldom outranks one with a rare term, and among themselves the newest go first).
 */
function rankWithinSpace(sql: SqlStorage, terms: readonly string[], scope: string, cache: TermCache): Ranked[] {
  const totals = totalsOf(sql, "search_index");
  if (totals.rows === 0) return [];
  const corpus = { rows: totals.rows, averageLength: (totals.tokens[0] ?? 0) / totals.rows };
  const frequencies = terms.map((term) => ({
    term,
    documents: documentFrequency(sql, "search_index", inColumns("text", term), totals, cache),
  }));
  const rows = new Map<number, Row & { text: string }>();
  for (const group of candidateGroups(frequencies)) {
    if (rows.size >= CANDIDATES) break;
    const expression = within(scope, `text : (${group.map(ftsString).join(" OR ")})`);
    for (const row of sql.exec<Row & { text: string }>(
      `${TEXT_ROWS} ORDER BY rowid DESC LIMIT ?`,
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
  return { row, score: bm25(tokens, weights, corpus), snippet: (term) => weights.has(term), matched };
}
