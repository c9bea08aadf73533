import { CANDIDATES, candidateGroups, type Ranked, type Shown, within } from "./candidates";
import { baseStem, indexedStems } from "./irregular-forms";
import { NEAR_TURNS, turnsAfter, wordsBefore } from "./neighbours";
import { bm25f, type FieldCorpus, idf } from "./ranking";
import { documentFrequency, rowsMatching, scopeSizes, type TermCache, totalsOf } from "./statistics";
import { isStopWord, stemOf } from "./stems";
import { ftsString } from "./tokens";

/**
 * Plain text by stems (`search_stems`, docs/api/search.md): the query's words without function
 * words, as stems, any of which may match a row's own words or the words of the turns before it;
 * ranked by BM25F over the two, the turns before at `NEAR_WEIGHT`. The rows a stem matches are
 * candidates, and so are the turns after each (`turnsAfter`): their turns before hold the stem.
 * A scope of at most `CANDIDATES` rows is ranked among itself; one of at most `SCOPE_STATISTICS`
 * with each stem's document frequency in it; anything larger, or the whole space, with each
 * stem's document frequency over the whole index, as word for word (`plain-words.ts`).
 *
 * `near` false (a search restricted to sources, a vendor's): the row's own words only, matched,
 * counted and weighed. The turns before a row may have been written by another source, and a
 * vendor must not test guesses against words they may not read.
 */
export function rankStems(sql: SqlStorage, stems: readonly string[], scope: string, cache: TermCache, near = true): Ranked[] {
  if (stems.length === 0) return [];
  const sizes = scope === "" ? null : scopeSizes(sql, "search_stems", scope, CANDIDATES);
  if (!sizes) return rankWithinSpace(sql, stems, scope, cache, near);
  const averageLength = sizes.reduce((sum, row) => sum + (row[0] ?? 0), 0) / sizes.length;
  return rankWithinScope(sql, stems, scope, { rows: sizes.length, averageLength }, near);
}

/**
 * A scope of up to this many rows weighs a stem by the share of its own rows that hold it. In one
 * customer's history their name, in every "thanks, Maria!", is no rare word, however rare in the
 * space; counting a stem in the scope reads at most this many rowids of its list.
 */
const SCOPE_STATISTICS = 5_000;

/** Rows whose near words make the near field's average length when more rows than `CANDIDATES` are ranked: the newest. */
const NEAR_SAMPLE = 100;

/** A row the near field's average length is taken over. */
type Sampled = { kind: string; ref_id: string };

/**
 * The newest `rows` rows of a scope (an FTS5 expression; none: of the space), whose near words'
 * average length stands for the near field's (no table holds it): a small scope's own statistics,
 * and a sample of a larger one's.
 */
function nearSample(sql: SqlStorage, scope: string, rows: number): Sampled[] {
  return sql
    .exec<Sampled>(
      `SELECT i.kind, i.ref_id FROM search_stems s CROSS JOIN search_index i ON i.rowid = s.rowid
       ${scope === "" ? "" : "WHERE search_stems MATCH ?1"} ORDER BY s.rowid DESC LIMIT ?${scope === "" ? 1 : 2}`,
      ...(scope === "" ? [] : [scope]),
      rows,
    )
    .toArray();
}

const isTurn = (row: { kind: string }) => row.kind === "message" || row.kind === "transcript";

type Candidate = Shown & { stems: string };

/** Candidates with their stems, and what a result shows of them from `search_index` (the same rowid). */
const CANDIDATE_ROWS = `SELECT s.rowid, s.stems, i.kind, i.ref_id, i.profile_id, i.occurred_at, i.channel, i.conversation_id
  FROM search_stems s CROSS JOIN search_index i ON i.rowid = s.rowid`;

/** Rows holding any of the stems in their own words, each stem in any of its forms (`go`: `go`, `went` or `gone`). */
const matching = (stems: readonly string[]) => `stems : (${stems.flatMap(indexedStems).map(ftsString).join(" OR ")})`;

/** A row's stems as a query asks them: each irregular form as its base. */
const wordsOf = (joined: string) => (joined === "" ? [] : joined.split(" ").map(baseStem));

/**
 * `rows` with the turns after each message among them (within `scope`, an FTS5 expression or
 * none), each with its own stems and, when `near`, the words of the turns before it; and the near
 * field's average length over `sample` (a row in no session, an episode or a fact has no near
 * words). One read of the turns before for both.
 */
function withNeighbours(sql: SqlStorage, rows: readonly Candidate[], scope: string, near: boolean, sample: readonly Sampled[]) {
  if (!near) return { candidates: rows.map((row) => ({ row, own: wordsOf(row.stems), near: [] as string[] })), averageNear: 0 };
  const after = turnsAfter(
    sql,
    rows.filter(isTurn).map((row) => row.ref_id),
  );
  const known = new Set(rows.map((row) => row.rowid));
  const fresh = after.filter(({ row }) => !known.has(row));
  const found =
    fresh.length === 0
      ? []
      : sql
          .exec<Candidate>(
            `${CANDIDATE_ROWS} WHERE s.rowid IN (SELECT value ->> 0 FROM json_each(?1)) ${scope === "" ? "" : "AND search_stems MATCH ?2"}`,
            JSON.stringify(fresh.map(({ row, itemId }) => [row, itemId])),
            ...(scope === "" ? [] : [scope]),
          )
          .toArray();
  const itemOf = new Map(fresh.map(({ row, itemId }) => [row, itemId]));
  const all = [...rows, ...found.filter((row) => itemOf.get(row.rowid) === row.ref_id)];
  const before = wordsBefore(sql, [...new Set([...all, ...sample].filter(isTurn).map((row) => row.ref_id))]);
  const sampled = sample.reduce((sum, row) => sum + (before.get(row.ref_id)?.length ?? 0), 0);
  return {
    candidates: all.map((row) => ({ row, own: wordsOf(row.stems), near: (before.get(row.ref_id) ?? []).map(baseStem) })),
    averageNear: sample.length === 0 ? 0 : sampled / sample.length,
  };
}

/** A small scope: its rows with a stem, and the turns after them, are the candidates, and the statistics are the scope's own. */
function rankWithinScope(
  sql: SqlStorage,
  stems: readonly string[],
  scope: string,
  sizes: Omit<FieldCorpus, "averageNear">,
  near: boolean,
): Ranked[] {
  const rows = sql
    .exec<Candidate>(`${CANDIDATE_ROWS} WHERE search_stems MATCH ? LIMIT ?`, within(scope, matching(stems)), CANDIDATES)
    .toArray();
  const sample = near ? nearSample(sql, scope, CANDIDATES) : [];
  const { candidates, averageNear } = withNeighbours(sql, rows, scope, near, sample);
  const corpus = { ...sizes, averageNear };
  const documents = new Map(stems.map((stem) => [stem, 0]));
  for (const { own, near: before } of candidates) {
    for (const stem of new Set([...own, ...before])) {
      const count = documents.get(stem);
      if (count !== undefined) documents.set(stem, count + 1);
    }
  }
  const weights = new Map(stems.map((stem) => [stem, idf(corpus, documents.get(stem) ?? 0)]));
  return candidates.map((candidate) => scored(candidate, weights, corpus)).filter(({ score }) => score > 0);
}

/** The whole space, or a scope too large to rank whole: rows with rare stems first, the rarest's first, then the newest with the others. */
function rankWithinSpace(sql: SqlStorage, stems: readonly string[], scope: string, cache: TermCache, near: boolean): Ranked[] {
  const totals = totalsOf(sql, "search_stems");
  if (totals.rows === 0) return [];
  const scopeRows = scope === "" ? null : rowsMatching(sql, "search_stems", scope, SCOPE_STATISTICS);
  const local = scopeRows !== null && scopeRows <= SCOPE_STATISTICS;
  // A scope's own rows, with the space's average lengths (reading each row's size would cost more than the search).
  const sizes = { rows: local ? scopeRows : totals.rows, averageLength: (totals.tokens[0] ?? 0) / totals.rows };
  const frequencies = stems.map((stem) => ({
    stem,
    documents: local
      ? rowsMatching(sql, "search_stems", within(scope, matching([stem])), SCOPE_STATISTICS)
      : documentFrequency(sql, "search_stems", matching([stem]), totals, cache),
  }));
  const rows = new Map<number, Candidate>();
  for (const group of candidateGroups(frequencies.map(({ stem, documents }) => ({ term: stem, documents })))) {
    if (rows.size >= CANDIDATES) break;
    for (const row of sql.exec<Candidate>(
      `${CANDIDATE_ROWS} WHERE search_stems MATCH ? ORDER BY s.rowid DESC LIMIT ?`,
      within(scope, matching(group)),
      CANDIDATES - rows.size,
    )) {
      rows.set(row.rowid, row);
    }
  }
  // A row holding a stem gives it to the turns after it as near words: n counts those rows too.
  const withNear = (documents: number) => (near ? Math.min(sizes.rows, (1 + NEAR_TURNS) * documents) : documents);
  const weights = new Map(frequencies.map(({ stem, documents }) => [stem, idf(sizes, withNear(documents))]));
  const sample = near ? nearSample(sql, local ? scope : "", NEAR_SAMPLE) : [];
  const { candidates, averageNear } = withNeighbours(sql, [...rows.values()], scope, near, sample);
  const corpus = { ...sizes, averageNear };
  return candidates.map((candidate) => scored(candidate, weights, corpus)).filter(({ score }) => score > 0);
}

function scored(
  { row, own, near }: { row: Candidate; own: string[]; near: string[] },
  weights: ReadonlyMap<string, number>,
  corpus: FieldCorpus,
): Ranked {
  const { stems: _stems, ...shown } = row;
  return {
    row: { ...shown, text: null },
    score: bm25f(own, near, weights, corpus),
    snippet: (term) => !isStopWord(term) && weights.has(baseStem(stemOf(term))),
    matched: new Set(own.filter((stem) => weights.has(stem))),
  };
}
