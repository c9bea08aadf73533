import type { SearchResult } from "../../contract/search";
import { RARE_ROWS } from "./statistics";

/** Terms of a plain query that are looked up; the rest of a longer query is ignored. */
export const MAX_TERMS = 32;
/**
 * Rows one plain search ranks at most: rows with a rare term first, then the newest rows with
 * the others. Reading a row is most of what a search costs (about 20 µs a row), so this bounds it.
 */
export const CANDIDATES = 300;

/** What a result shows of a row of `search_index` (a type, not an interface: a statement's row type needs one). */
export type Shown = {
  rowid: number;
  kind: SearchResult["kind"];
  ref_id: string;
  profile_id: string;
  occurred_at: number;
  channel: string | null;
  conversation_id: string | null;
};

/** A row of a result, with its `text` when the ranking has read it already, else null. */
export type Row = Shown & { text: string | null };

/** The columns of `search_index` a `Row` is read from (with `text` where the ranking needs it). */
export const ROW_COLUMNS = "rowid, kind, ref_id, profile_id, occurred_at, channel, conversation_id";

export interface Ranked {
  row: Row;
  score: number;
  /** FTS5's own snippet (mode `fts5`), or which folded tokens of the row's text to mark. */
  snippet: string | ((term: string) => boolean);
  /** The query terms the row's own text holds (plain text); null: FTS5 syntax, whose matches are FTS5's. */
  matched: ReadonlySet<string> | null;
}

/** An FTS5 expression kept to a scope (profiles, sources), or alone when there is none. */
export const within = (scope: string, expression: string) => (scope === "" ? expression : `${scope} AND ${expression}`);

/**
 * The groups of terms whose rows a whole-space ranking reads, in turn, up to `CANDIDATES` rows:
 * each rare term alone, the rarest first, so that the rows of the rarest term are candidates
 * however early they were indexed (one query over several rare terms would keep only the newest
 * of their rows together); then the frequent terms together, their newest rows.
 */
export function candidateGroups(frequencies: readonly { term: string; documents: number }[]): string[][] {
  const rare = frequencies.filter((entry) => entry.documents <= RARE_ROWS).sort((a, b) => a.documents - b.documents);
  const frequent = frequencies.filter((entry) => entry.documents > RARE_ROWS).map((entry) => entry.term);
  return [...rare.map((entry) => [entry.term]), ...(frequent.length > 0 ? [frequent] : [])];
}
