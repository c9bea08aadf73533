import type { Suggestion, SuggestionFeature, SuggestionFeatures } from "../../contract/identity";
import { decodeCursor, pageFrom } from "../../http/cursor";
import { Problem } from "../../http/problem";
import { uuidv7 } from "../../ids";
import { findHandleById, firstActiveHandleOf } from "./handle-store";
import { COMPARISONS, decodePattern } from "./linkage/comparisons";
import { currentModel } from "./linkage/model-store";
import { levelWeights, MEETING_WEIGHTS, type Model, matchWeight } from "./linkage/weights";
import type { Visibility } from "./masking";
import { mergeRoots } from "./merges";
import { identifierObject } from "./profile-view";
import { rootOf } from "./profiles";

/** A candidate pair of profiles that reached the threshold in a run: its probability and evidence. */
export interface FoundPair {
  profileA: string;
  profileB: string;
  score: number;
  pattern: string;
  meetings: number;
}

interface SuggestionRow {
  suggestion_id: string;
  profile_a: string;
  profile_b: string;
  handle_a: string;
  handle_b: string;
  score: number;
  pattern: string;
  co_occurrences: number;
  status: string;
  run: number;
  created_at: number;
  updated_at: number;
  [column: string]: SqlStorageValue;
}

/** A level's rank, strongest first; a missing value sits between agreeing and `different`. */
function rank(level: number | null, levels: number): number {
  return level === null ? levels - 1.5 : level;
}

/**
 * New evidence that a dismissed pair did not have: a comparison at a stronger level than when it
 * was dismissed (a value now agreeing, or agreeing more closely), or more meetings.
 */
export function strongerEvidence(
  now: { pattern: string; meetings: number },
  then: { pattern: string; meetings: number },
): boolean {
  if (now.meetings > then.meetings) return true;
  const [levelsNow, levelsThen] = [decodePattern(now.pattern), decodePattern(then.pattern)];
  return COMPARISONS.some(
    (comparison, k) =>
      rank(levelsNow[k] ?? null, comparison.levels.length) < rank(levelsThen[k] ?? null, comparison.levels.length),
  );
}

interface Existing {
  ra: string;
  rb: string;
  suggestion_id: string | null;
  status: string | null;
  score: number | null;
  pattern: string | null;
  co_occurrences: number | null;
  run: number | null;
  /** The roots' handles, read where no suggestion holds the pair yet. */
  handle_a: string | null;
  handle_b: string | null;
  [column: string]: SqlStorageValue;
}

/**
 * Records what a run found for a slice of pairs that reached the threshold, as pairs of the
 * profiles that answer for them now (roots): a new open suggestion; an open one found again
 * (stamped with the run, its score the best of the run's member pairs); a rejected one opened
 * again only on new evidence; an accepted one left alone. One statement reads the roots, keeps
 * the best member pair of each pair of roots (the first of equals), and reads the suggestion that
 * holds their pair and, where none does, the handles that will stand for them. (Picked in SQL, not
 * in a map keyed by the roots' ids, whose new string keys would grow the isolate's string table:
 * docs/performance.md.)
 */
export function recordFound(sql: SqlStorage, found: readonly FoundPair[], run: number, now: number): void {
  if (found.length === 0) return;
  const rows = sql
    .exec<Existing>(
      `WITH r AS (
         SELECT j.key AS i, min(pa.root_id, pb.root_id) AS ra, max(pa.root_id, pb.root_id) AS rb, j.value ->> 2 AS score
         FROM json_each(?) j CROSS JOIN profiles pa CROSS JOIN profiles pb
         WHERE pa.profile_id = j.value ->> 0 AND pb.profile_id = j.value ->> 1 AND pa.root_id <> pb.root_id
       ), f AS (SELECT *, row_number() OVER (PARTITION BY ra, rb ORDER BY score DESC, i) AS nth FROM r)
       SELECT f.i, f.ra, f.rb, s.suggestion_id, s.status, s.score, s.pattern, s.co_occurrences, s.run,
         CASE WHEN s.suggestion_id IS NULL THEN ${firstActiveHandleOf("f.ra")} END AS handle_a,
         CASE WHEN s.suggestion_id IS NULL THEN ${firstActiveHandleOf("f.rb")} END AS handle_b
       FROM f LEFT JOIN suggestions s ON s.profile_a = f.ra AND s.profile_b = f.rb
       WHERE f.nth = 1`,
      JSON.stringify(found.map((pair) => [pair.profileA, pair.profileB, pair.score])),
    )
    .toArray();
  const inserts: (string | number)[][] = [];
  const changed: { id: string; pair: FoundPair }[] = [];
  const verdicts = rejectedBetweenMembers(
    sql,
    rows.filter((row) => row.suggestion_id === null),
  );
  for (const row of rows) {
    const pair = found[Number(row.i)] as FoundPair;
    if (row.suggestion_id === null) {
      // A pair rejected between their members before a merge: back only on new evidence, as every rejected pair.
      if (verdicts.get(Number(row.i))?.some((was) => !strongerEvidence(pair, was))) continue;
      if (row.handle_a && row.handle_b) {
        inserts.push([uuidv7(now), row.ra, row.rb, row.handle_a, row.handle_b, pair.score, pair.pattern, pair.meetings]);
      }
      continue;
    }
    const was = { pattern: row.pattern ?? "", meetings: row.co_occurrences ?? 0 };
    if (row.status === "accepted") continue;
    if (row.status === "rejected" && !strongerEvidence(pair, was)) continue;
    if (row.status === "open" && row.run === run && (row.score ?? 0) >= pair.score) continue;
    changed.push({ id: row.suggestion_id, pair });
  }
  if (inserts.length > 0) {
    sql.exec(
      `INSERT INTO suggestions (suggestion_id, profile_a, profile_b, handle_a, handle_b, score, pattern, co_occurrences, status, run, created_at, updated_at)
       SELECT r.value ->> 0, r.value ->> 1, r.value ->> 2, r.value ->> 3, r.value ->> 4, r.value ->> 5, r.value ->> 6, r.value ->> 7, 'open', ?2, ?3, ?3
       FROM json_each(?1) r`,
      JSON.stringify(inserts),
      run,
      now,
    );
  }
  if (changed.length > 0) {
    sql.exec(
      `UPDATE suggestions SET score = r.value ->> 1, pattern = r.value ->> 2, co_occurrences = r.value ->> 3, status = 'open', run = ?2,
         updated_at = CASE WHEN suggestions.status = 'open' AND suggestions.score = r.value ->> 1 THEN updated_at ELSE ?3 END
       FROM json_each(?1) r WHERE suggestions.suggestion_id = r.value ->> 0`,
      JSON.stringify(changed.map(({ id, pair }) => [id, pair.score, pair.pattern, pair.meetings])),
      run,
      now,
    );
  }
}

/**
 * For each pair of roots no suggestion holds, the evidence of the rejected suggestions between
 * their members (a suggestion names the roots of its time: a merge since moved one side under
 * another root), by the found pair's index. Through the roots' members (`profiles_root_id`) and
 * the suggestions of each member (`suggestions_pair`; `+status` keeps SQLite off the status
 * index, which would walk every rejected suggestion), both ways round.
 */
function rejectedBetweenMembers(
  sql: SqlStorage,
  pairs: readonly Existing[],
): Map<number, { pattern: string; meetings: number }[]> {
  const verdicts = new Map<number, { pattern: string; meetings: number }[]>();
  // Most runs find no rejected suggestion at all (`suggestions_status_run`): nothing to look up per pair.
  if (pairs.length === 0 || sql.exec("SELECT 1 FROM suggestions WHERE status = 'rejected' LIMIT 1").toArray().length === 0) {
    return verdicts;
  }
  const rows = sql.exec<{ i: number; pattern: string | null; co_occurrences: number | null }>(
    `WITH c AS (SELECT value ->> 0 AS i, value ->> 1 AS x, value ->> 2 AS y FROM json_each(?1)
                UNION ALL SELECT value ->> 0, value ->> 2, value ->> 1 FROM json_each(?1))
     SELECT c.i, s.pattern, s.co_occurrences FROM c
       CROSS JOIN profiles ma CROSS JOIN suggestions s CROSS JOIN profiles mb
     WHERE ma.root_id = c.x AND s.profile_a = ma.profile_id AND +s.status = 'rejected'
       AND mb.profile_id = s.profile_b AND mb.root_id = c.y`,
    JSON.stringify(pairs.map((row) => [Number(row.i), row.ra, row.rb])),
  );
  for (const row of rows) {
    const list = verdicts.get(row.i) ?? [];
    list.push({ pattern: row.pattern ?? "", meetings: row.co_occurrences ?? 0 });
    verdicts.set(row.i, list);
  }
  return verdicts;
}

/**
 * Withdraws open suggestions the run `run` did not find again (their pair no longer reaches the
 * threshold, or its profiles merged), `limit` at most; answers how many.
 */
export function withdrawUnfound(sql: SqlStorage, run: number, limit: number): number {
  return sql
    .exec(
      "DELETE FROM suggestions WHERE suggestion_id IN (SELECT suggestion_id FROM suggestions WHERE status = 'open' AND run < ? LIMIT ?) RETURNING 1",
      run,
      limit,
    )
    .toArray().length;
}

/**
 * A suggestion's features: SPEC's summary (`same_name`, `same_postal_code`, `co_occurrences`),
 * and each comparison with a value on both sides, its level and weight, then its meetings.
 */
function featuresOf(pattern: string, meetings: number, model: Model): { features: SuggestionFeatures; weight: number } {
  const weights = levelWeights(model);
  const levels = decodePattern(pattern);
  const comparisons: SuggestionFeature[] = [];
  COMPARISONS.forEach((comparison, k) => {
    const level = levels[k];
    if (level === null || level === undefined) return;
    comparisons.push({
      comparison: comparison.name,
      level: comparison.levels[level] ?? "different",
      weight: Math.round((weights[k]?.[level] ?? 0) * 100) / 100,
    });
  });
  if (meetings > 0) {
    comparisons.push({
      comparison: "meetings",
      level: meetings > 1 ? "several" : "one",
      weight: MEETING_WEIGHTS[meetings > 1 ? 1 : 0],
    });
  }
  const levelOf = (name: string) => comparisons.find((feature) => feature.comparison === name)?.level;
  const family = levelOf("family_name");
  const given = levelOf("given_name");
  const features = {
    same_name: family === "swapped" || (family === "exact" && (given === undefined || given === "exact")),
    same_postal_code: levelOf("postal_code") === "exact",
    co_occurrences: meetings,
    comparisons,
  };
  return { features, weight: Math.round(matchWeight(levels, weights, model.lambda, meetings) * 100) / 100 };
}

function findSuggestion(sql: SqlStorage, suggestionId: string): SuggestionRow {
  const row = sql.exec<SuggestionRow>("SELECT * FROM suggestions WHERE suggestion_id = ?", suggestionId).toArray()[0];
  if (!row) throw new Problem("not_found", "no such suggestion");
  return row;
}

/** A suggestion as answered: each side with its identifier, masked; null when the handle is gone; its features weighed by `model`. */
export function suggestionView(
  sql: SqlStorage,
  row: SuggestionRow,
  visibility: Visibility,
  model = currentModel(sql),
): Suggestion {
  const side = (handleId: string) => {
    const handle = findHandleById(sql, handleId);
    if (!handle || handle.status === "erased") return null;
    return identifierObject(handle, rootOf(sql, handle.profileId)?.subjectKind ?? "person", visibility);
  };
  const features = featuresOf(row.pattern, row.co_occurrences, model);
  return {
    suggestion_id: row.suggestion_id,
    handle_a: row.handle_a,
    handle_b: row.handle_b,
    profile_a: row.profile_a,
    profile_b: row.profile_b,
    identifier_a: side(row.handle_a),
    identifier_b: side(row.handle_b),
    score: row.score,
    match_weight: features.weight,
    features: features.features,
    status: row.status as Suggestion["status"],
    created_at: new Date(row.created_at).toISOString(),
  };
}

export function listSuggestions(
  sql: SqlStorage,
  query: { status?: Suggestion["status"] | undefined; cursor?: string | undefined; limit: number },
  visibility: Visibility,
): { data: Suggestion[]; next_cursor: string | null } {
  const after = decodeCursor(query.cursor) ?? "";
  const rows = sql
    .exec<SuggestionRow>(
      "SELECT * FROM suggestions WHERE suggestion_id > ? AND (? IS NULL OR status = ?) ORDER BY suggestion_id LIMIT ?",
      after,
      query.status ?? null,
      query.status ?? null,
      query.limit + 1,
    )
    .toArray();
  const page = pageFrom(rows, query.limit, (row) => row.suggestion_id);
  const model = currentModel(sql);
  return { data: page.data.map((row) => suggestionView(sql, row, visibility, model)), next_cursor: page.next_cursor };
}

/**
 * Dismiss: `open` becomes `rejected`, and the pair comes back only on new evidence. A rejected
 * or accepted suggestion is answered as it is (an accepted one is split by undoing its merge).
 */
export function dismissSuggestion(sql: SqlStorage, suggestionId: string, now: number, visibility: Visibility): Suggestion {
  const row = findSuggestion(sql, suggestionId);
  if (row.status !== "open") return suggestionView(sql, row, visibility);
  sql.exec("UPDATE suggestions SET status = 'rejected', updated_at = ? WHERE suggestion_id = ?", now, suggestionId);
  return suggestionView(sql, { ...row, status: "rejected" }, visibility);
}

/**
 * Accept: the two profiles merge, method `review`, with the person as evidence. A person may
 * accept a pair they dismissed before; accepting again answers the suggestion as it is.
 * `survivor`: the profile that absorbed the other now, whose memory the caller compiles again;
 * null when nothing merged.
 */
export function acceptSuggestion(
  sql: SqlStorage,
  suggestionId: string,
  personId: string,
  now: number,
  visibility: Visibility,
): { suggestion: Suggestion; survivor: string | null } {
  const row = findSuggestion(sql, suggestionId);
  let survivor: string | null = null;
  if (row.status !== "accepted") {
    const roots = [rootOf(sql, row.profile_a), rootOf(sql, row.profile_b)].filter((root) => root !== null);
    const distinct = roots.filter((root, index) => roots.findIndex((other) => other.profileId === root.profileId) === index);
    if (distinct.length > 1) {
      survivor = mergeRoots(sql, distinct, { method: "review", itemId: null, sourceId: null, personId }, now);
    }
    sql.exec("UPDATE suggestions SET status = 'accepted', updated_at = ? WHERE suggestion_id = ?", now, suggestionId);
  }
  return { suggestion: suggestionView(sql, { ...row, status: "accepted" }, visibility), survivor };
}
