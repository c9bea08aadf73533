import { Problem } from "../../http/problem";
import { uuidv7 } from "../../ids";
import { attachProfile, detachProfile, findProfile, type ProfileRecord } from "./profiles";

/** Why two profiles became one: the item and source of an `identify`, or the person who accepted a suggestion. */
export interface MergeEvidence {
  method: string;
  itemId: string | null;
  sourceId: string | null;
  personId: string | null;
}

export interface MergeRecord extends MergeEvidence {
  mergeId: string;
  survivorId: string;
  absorbedId: string;
  createdAt: number;
  undoneAt: number | null;
}

interface MergeRow {
  merge_id: string;
  survivor_id: string;
  absorbed_id: string;
  method: string;
  item_id: string | null;
  source_id: string | null;
  person_id: string | null;
  created_at: number;
  undone_at: number | null;
  [column: string]: SqlStorageValue;
}

const record = (row: MergeRow): MergeRecord => ({
  mergeId: row.merge_id,
  survivorId: row.survivor_id,
  absorbedId: row.absorbed_id,
  method: row.method,
  itemId: row.item_id,
  sourceId: row.source_id,
  personId: row.person_id,
  createdAt: row.created_at,
  undoneAt: row.undone_at,
});

/**
 * Merges distinct root profiles into the oldest of them: each younger root points at it and one
 * merge is recorded per younger root. Writes O(profiles merged), never O(events): events and
 * handles keep the profile they joined and follow it through `root_id`.
 */
export function mergeRoots(sql: SqlStorage, roots: readonly ProfileRecord[], evidence: MergeEvidence, now: number): string {
  const [survivor, ...absorbed] = [...roots].sort((a, b) => a.seq - b.seq);
  if (!survivor) throw new Error("mergeRoots needs at least one profile");
  for (const profile of absorbed) {
    attachProfile(sql, profile.profileId, survivor.profileId);
    sql.exec(
      "INSERT INTO merges (merge_id, survivor_id, absorbed_id, method, item_id, source_id, person_id, created_at, undone_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL)",
      uuidv7(now),
      survivor.profileId,
      profile.profileId,
      evidence.method,
      evidence.itemId,
      evidence.sourceId,
      evidence.personId,
      now,
    );
  }
  return survivor.profileId;
}

export function findMerge(sql: SqlStorage, mergeId: string): MergeRecord | null {
  const row = sql.exec<MergeRow>("SELECT * FROM merges WHERE merge_id = ?", mergeId).toArray()[0];
  return row ? record(row) : null;
}

/**
 * Splits a merge back: the absorbed profile, with everything that was merged into it, answers
 * for itself again, so both sides get back exactly their handles and events. Undoing an undone
 * merge changes nothing and answers the same record.
 */
export function undoMerge(sql: SqlStorage, mergeId: string, now: number): MergeRecord {
  const merge = findMerge(sql, mergeId);
  // A merge of an erased subject keeps its ids on record and nothing else: there is nothing to split.
  if (!merge || !findProfile(sql, merge.survivorId) || !findProfile(sql, merge.absorbedId)) {
    throw new Problem("not_found", "no such merge");
  }
  if (merge.undoneAt !== null) return merge;
  if (findProfile(sql, merge.absorbedId)?.mergedInto === merge.survivorId) detachProfile(sql, merge.absorbedId);
  sql.exec("UPDATE merges SET undone_at = ? WHERE merge_id = ?", now, mergeId);
  return { ...merge, undoneAt: now };
}

/** The merges a root's profiles took part in, on either side, oldest first. */
export function mergesOfRoot(sql: SqlStorage, rootId: string): MergeRecord[] {
  return sql
    .exec<MergeRow>(
      `SELECT DISTINCT m.* FROM merges m JOIN profiles p ON p.profile_id IN (m.survivor_id, m.absorbed_id)
       WHERE p.root_id = ? ORDER BY m.created_at, m.merge_id`,
      rootId,
    )
    .toArray()
    .map(record);
}
