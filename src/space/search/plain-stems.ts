import { CANDIDATES, candidateGroups, type Ranked, type Shown, within } from "./candidates";
import { baseStem, indexedStems } from "./irregular-forms";
import { bm25f, type FieldCorpus, idf } from "./ranking";
import { documentFrequency, rowsMatching, scopeSizes, type TermCache, totalsOf } from "./statistics";
import { isStopWord, stemOf } from "./stems";
import { ftsString } from "./tokens";

/**
 * Plain text by stems (`search_stems`, docs/api/search.md): the query's words without function
 * words, as stems, any of which may match a row's own words or the words of the turns before it;
 * ranked by BM25F over the two, the turns before at `NEAR_WEIGHT`. A scope of at most
 * `CANDIDATES` rows is ranked among itself; one of at most `SCOPE_STATISTICS` with each stem's
 * document frequency in it; anything larger, or the whole space, with each stem's document
 * frequency over the whole index, as word for word (`plain-words.ts`).
 *
 * `near` false (a search restricted to sources, a vendor's): the row's own words only, matched,
 * counted and weighed. The turns before a row may have been written by another source, and a
 * vendor must not test guesses against words they may not read.
 */
export function rankStems(sql: SqlStorage, stems: readonly string[], scope: string, cache: TermCache, near = true): Ranked[] {
  if (stems.length === 0) return [];
  const fields = near ? BOTH_FIELDS : OWN_FIELD;
  const sizes = scope === "" ? null : scopeSizes(sql, "search_stems", scope, CANDIDATES);
  if (!sizes) return rankWithinSpace(sql, stems, scope, cache, fields);
  const total = (column: number) => sizes.reduce((sum, row) => sum + (row[column] ?? 0), 0);
  const corpus = { rows: sizes.length, averageLength: total(0) / sizes.length, averageNear: total(1) / sizes.length };
  return rankWithinScope(sql, stems, scope, corpus, fields);
}

/**
 * A scope of up to this many rows weighs a stem by the share of its own rows that hold it. In one
 * customer's history their name, in every "thanks, Maria!", is no rare word, however rare in the
 * space; counting a stem in the scope reads at most this many rowids of its list.
 */
const SCOPE_STATISTICS = 5_000;

/** The fields a search matches: `{stems near}` (a stem met in a row's own words or in the turns before it), or `{stems}`. */
type Fields = typeof BOTH_FIELDS | typeof OWN_FIELD;
const BOTH_FIELDS = "{stems near}";
const OWN_FIELD = "{stems}";

type Candidate = Shown & { stems: string; near: string };

/** Candidates with their stems, and what a result shows of them from `search_index` (the same rowid). */
const CANDIDATE_ROWS = `SELECT s.rowid, s.stems, s.near, i.kind, i.ref_id, i.profile_id, i.occurred_at, i.channel, i.conversation_id
  FROM search_stems s CROSS JOIN search_index i ON i.rowid = s.rowid WHERE search_stems MATCH ?`;

/** Rows holding any of the stems in the fields, each stem in any of its forms (`go`: `go`, `went` or `gone`). */
const matching = (fields: Fields, stems: readonly string[]) =>
  `${fields} : (${stems.flatMap(indexedStems).map(ftsString).join(" OR ")})`;

/** A row's stems as a query asks them: each irregular form as its base. */
const wordsOf = (joined: string) => (joined === "" ? [] : joined.split(" ").map(baseStem));

/** A candidate's own stems, and its near words when the search matches them (else none: BM25F is then BM25). */
const fieldsOf = (row: Candidate, fields: Fields) => ({
  row,
  own: wordsOf(row.stems),
  near: fields === BOTH_FIELDS ? wordsOf(row.near) : [],
});

/** A small scope: its rows with a stem are the candidates, and the statistics are the scope's own. */
function rankWithinScope(
  sql: SqlStorage,
  stems: readonly string[],
  scope: string,
  corpus: FieldCorpus,
  fields: Fields,
): Ranked[] {
  const rows = sql.exec<Candidate>(`${CANDIDATE_ROWS} LIMIT ?`, within(scope, matching(fields, stems)), CANDIDATES).toArray();
  const candidates = rows.map((row) => fieldsOf(row, fields));
  const documents = new Map(stems.map((stem) => [stem, 0]));
  for (const { own, near } of candidates) {
    for (const stem of new Set([...own, ...near])) {
      const count = documents.get(stem);
      if (count !== undefined) documents.set(stem, count + 1);
    }
  }
  const weights = new Map(stems.map((stem) => [stem, idf(corpus, documents.get(stem) ?? 0)]));
  return candidates.map((candidate) => scored(candidate, weights, corpus));
}

/** The whole space, or a scope too large to rank whole: rows with rare stems first, the rarest's first, then the newest with the others. */
function rankWithinSpace(sql: SqlStorage, stems: readonly string[], scope: string, cache: TermCache, fields: Fields): Ranked[] {
  const totals = totalsOf(sql, "search_stems");
  if (totals.rows === 0) return [];
  const scopeRows = scope === "" ? null : rowsMatching(sql, "search_stems", scope, SCOPE_STATISTICS);
  const local = scopeRows !== null && scopeRows <= SCOPE_STATISTICS;
  // A scope's own rows, with the space's average lengths (reading each row's size would cost more than the search).
  const corpus = {
    rows: local ? scopeRows : totals.rows,
    averageLength: (totals.tokens[0] ?? 0) / totals.rows,
    averageNear: (totals.tokens[1] ?? 0) / totals.rows,
  };
  const frequencies = stems.map((stem) => ({
    stem,
    documents: local
      ? rowsMatching(sql, "search_stems", within(scope, matching(fields, [stem])), SCOPE_STATISTICS)
      : documentFrequency(sql, "search_stems", matching(fields, [stem]), totals, cache),
  }));
  const rows = new Map<number, Candidate>();
  for (const group of candidateGroups(frequencies.map(({ stem, documents }) => ({ term: stem, documents })))) {
    if (rows.size >= CANDIDATES) break;
    const expression = within(scope, matching(fields, group));
    for (const row of sql.exec<Candidate>(
      `${CANDIDATE_ROWS} ORDER BY s.rowid DESC LIMIT ?`,
      expression,
      CANDIDATES - rows.size,
    )) {
      rows.set(row.rowid, row);
    }
  }
  const weights = new Map(frequencies.map(({ stem, documents }) => [stem, idf(corpus, documents)]));
  return [...rows.values()].map((row) => scored(fieldsOf(row, fields), weights, corpus));
}

function scored(
  { row, own, near }: { row: Candidate; own: string[]; near: string[] },
  weights: ReadonlyMap<string, number>,
  corpus: FieldCorpus,
): Ranked {
  const { stems: _stems, near: _near, ...shown } = row;
  return {
    row: { ...shown, text: null },
    score: bm25f(own, near, weights, corpus),
    snippet: (term) => !isStopWord(term) && weights.has(baseStem(stemOf(term))),
    matched: new Set(own.filter((stem) => weights.has(stem))),
  };
}
