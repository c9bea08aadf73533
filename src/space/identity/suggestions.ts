import type { Suggestion } from "../../contract/identity";
import { decodeCursor, pageFrom } from "../../http/cursor";
import { Problem } from "../../http/problem";
import { uuidv7 } from "../../ids";
import { findHandleById } from "./handle-store";
import type { Visibility } from "./masking";
import { mergeRoots } from "./merges";
import { identifierObject } from "./profile-view";
import { rootOf } from "./profiles";

/** What a pair of profiles has in common (SPEC's `features`). */
export interface Features {
  sameName: boolean;
  samePostalCode: boolean;
  coOccurrences: number;
}

/**
 * How likely two profiles are one subject: 1 − ∏(1 − wᵢ) over independent evidence. A shared
 * name (0.4) or postal code (0.3) alone is not enough; both together are, and so is one event in
 * which their handles met (each halves the doubt).
 */
export function scoreOf(features: Features): number {
  const doubt = (features.sameName ? 0.6 : 1) * (features.samePostalCode ? 0.7 : 1) * 0.5 ** features.coOccurrences;
  return Math.round((1 - doubt) * 1000) / 1000;
}

/** Pairs scoring at least this are suggested. */
export const SUGGESTION_THRESHOLD = 0.5;

/** New evidence that a rejected pair did not have: a feature it lacked, or more meetings. */
function stronger(now: Features, then: Features): boolean {
  return (
    (now.sameName && !then.sameName) || (now.samePostalCode && !then.samePostalCode) || now.coOccurrences > then.coOccurrences
  );
}

interface SuggestionRow {
  suggestion_id: string;
  profile_a: string;
  profile_b: string;
  handle_a: string;
  handle_b: string;
  score: number;
  same_name: number;
  same_postal_code: number;
  co_occurrences: number;
  status: string;
  created_at: number;
  updated_at: number;
  [column: string]: SqlStorageValue;
}

/** A pair of root profiles the job found, what they share, and the suggestion it already has (if any). */
export interface Candidate {
  profileA: string;
  profileB: string;
  features: Features;
  existing: { suggestionId: string; status: Suggestion["status"]; score: number; features: Features } | null;
}

/**
 * Records what the job found for a slice of pairs (`profileA` < `profileB`): a new open
 * suggestion when the score reaches the threshold; an open one updated; a rejected one opened
 * again only on new evidence; an accepted one left alone. Writes only what changes, in one
 * statement for the new and one for the changed; `handlesOf` names each new side's handle.
 */
export function recordCandidates(
  sql: SqlStorage,
  candidates: readonly Candidate[],
  handlesOf: (roots: string[]) => Map<string, string>,
  now: number,
): void {
  const fresh: Candidate[] = [];
  const changed: { id: string; score: number; features: Features }[] = [];
  for (const candidate of candidates) {
    const { features, existing } = candidate;
    const score = scoreOf(features);
    if (!existing) {
      if (score >= SUGGESTION_THRESHOLD) fresh.push(candidate);
      continue;
    }
    if (existing.status === "accepted") continue;
    if (existing.status === "rejected" && !stronger(features, existing.features)) continue;
    if (existing.status === "open" && existing.score === score) continue;
    changed.push({ id: existing.suggestionId, score, features });
  }
  const handles = fresh.length > 0 ? handlesOf(fresh.flatMap((pair) => [pair.profileA, pair.profileB])) : new Map();
  const rows = fresh.flatMap(({ profileA, profileB, features }) => {
    const handleA = handles.get(profileA);
    const handleB = handles.get(profileB);
    return handleA && handleB ? [[uuidv7(now), profileA, profileB, handleA, handleB, scoreOf(features), ...flags(features)]] : [];
  });
  if (rows.length > 0) {
    sql.exec(
      `INSERT INTO suggestions (suggestion_id, profile_a, profile_b, handle_a, handle_b, score, same_name, same_postal_code, co_occurrences, status, created_at, updated_at)
       SELECT r.value ->> 0, r.value ->> 1, r.value ->> 2, r.value ->> 3, r.value ->> 4, r.value ->> 5, r.value ->> 6, r.value ->> 7, r.value ->> 8, 'open', ?2, ?2
       FROM json_each(?1) r`,
      JSON.stringify(rows),
      now,
    );
  }
  if (changed.length > 0) {
    sql.exec(
      `UPDATE suggestions SET score = r.value ->> 1, same_name = r.value ->> 2, same_postal_code = r.value ->> 3,
         co_occurrences = r.value ->> 4, status = 'open', updated_at = ?2
       FROM json_each(?1) r WHERE suggestions.suggestion_id = r.value ->> 0`,
      JSON.stringify(changed.map(({ id, score, features }) => [id, score, ...flags(features)])),
      now,
    );
  }
}

const flags = (features: Features) => [features.sameName ? 1 : 0, features.samePostalCode ? 1 : 0, features.coOccurrences];

function findSuggestion(sql: SqlStorage, suggestionId: string): SuggestionRow {
  const row = sql.exec<SuggestionRow>("SELECT * FROM suggestions WHERE suggestion_id = ?", suggestionId).toArray()[0];
  if (!row) throw new Problem("not_found", "no such suggestion");
  return row;
}

/** A suggestion as answered: each side with its identifier, masked; null when the handle is gone. */
export function suggestionView(sql: SqlStorage, row: SuggestionRow, visibility: Visibility): Suggestion {
  const side = (handleId: string) => {
    const handle = findHandleById(sql, handleId);
    if (!handle || handle.status === "erased") return null;
    return identifierObject(handle, rootOf(sql, handle.profileId)?.subjectKind ?? "person", visibility);
  };
  return {
    suggestion_id: row.suggestion_id,
    handle_a: row.handle_a,
    handle_b: row.handle_b,
    profile_a: row.profile_a,
    profile_b: row.profile_b,
    identifier_a: side(row.handle_a),
    identifier_b: side(row.handle_b),
    score: row.score,
    features: {
      same_name: row.same_name === 1,
      same_postal_code: row.same_postal_code === 1,
      co_occurrences: row.co_occurrences,
    },
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
  return { data: page.data.map((row) => suggestionView(sql, row, visibility)), next_cursor: page.next_cursor };
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
 */
export function acceptSuggestion(
  sql: SqlStorage,
  suggestionId: string,
  personId: string,
  now: number,
  visibility: Visibility,
): Suggestion {
  const row = findSuggestion(sql, suggestionId);
  if (row.status !== "accepted") {
    const roots = [rootOf(sql, row.profile_a), rootOf(sql, row.profile_b)].filter((root) => root !== null);
    const distinct = roots.filter((root, index) => roots.findIndex((other) => other.profileId === root.profileId) === index);
    if (distinct.length > 1) mergeRoots(sql, distinct, { method: "review", itemId: null, sourceId: null, personId }, now);
    sql.exec("UPDATE suggestions SET status = 'accepted', updated_at = ? WHERE suggestion_id = ?", now, suggestionId);
  }
  return suggestionView(sql, { ...row, status: "accepted" }, visibility);
}
