import { baseStem } from "../search/irregular-forms";
import type { Vocabulary } from "./summarizer";

/**
 * The space's own word frequencies for the summarizer (docs/api/memory.md "Episodes"): document
 * frequencies of stems over the latest `SAMPLE_ROWS` rows of the search index's `stems` column
 * (`search_stems`, which holds each message's stems as the same stemmer makes them; irregular
 * forms counted as their base, as content words are). Read in one statement and held in memory
 * per object; read again once the index has doubled while small, then once it has grown by the
 * rows read, and past 20,000 rows by a tenth of itself: under a saturating ingest a compile slice
 * came after every 2,000 new rows and read them again each time (a third of the slice), where
 * frequencies over a space's latest messages barely move between samples. The latest rows are the
 * space's language as it is now; a stem none of them holds counts as rare.
 */
const SAMPLE_ROWS = 2_000;
/** A small index is read again after at least this many new rows. */
const MIN_GROWTH = 100;

interface Held {
  lastRowid: number;
  vocabulary: Vocabulary;
}

/** Per object: a Durable Object's `SqlStorage` handle lives as long as the object. */
const held = new WeakMap<SqlStorage, Held>();

export function spaceVocabulary(sql: SqlStorage): Vocabulary {
  const lastRowid =
    sql.exec<{ rowid: number }>("SELECT rowid FROM search_stems ORDER BY rowid DESC LIMIT 1").toArray()[0]?.rowid ?? 0;
  const current = held.get(sql);
  if (current && lastRowid >= current.lastRowid && lastRowid - current.lastRowid < growthOf(current.lastRowid)) {
    return current.vocabulary;
  }
  const vocabulary = sampled(sql);
  held.set(sql, { lastRowid, vocabulary });
  return vocabulary;
}

/** Lets go of the held frequencies (an erasure took rows out of the index): read again on the next compile. */
export function forgetVocabulary(sql: SqlStorage): void {
  held.delete(sql);
}

const growthOf = (rows: number) => Math.max(MIN_GROWTH, Math.min(rows, Math.max(SAMPLE_ROWS, rows / 10)));

function sampled(sql: SqlStorage): Vocabulary {
  const frequencies = new Map<string, number>();
  let documents = 0;
  for (const { stems } of sql.exec<{ stems: string | null }>(
    "SELECT stems FROM search_stems ORDER BY rowid DESC LIMIT ?",
    SAMPLE_ROWS,
  )) {
    documents++;
    if (!stems) continue;
    for (const stem of new Set(stems.split(" ").map(baseStem))) frequencies.set(stem, (frequencies.get(stem) ?? 0) + 1);
  }
  return { documents, documentFrequency: (stem) => frequencies.get(stem) ?? 0 };
}
