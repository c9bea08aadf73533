import { uuidv7 } from "../../ids";

export type SubjectKind = "person" | "account" | "partner";

export interface ProfileRecord {
  seq: number;
  profileId: string;
  subjectKind: SubjectKind;
  mergedInto: string | null;
  rootId: string;
  createdAt: number;
}

interface ProfileRow {
  seq: number;
  profile_id: string;
  subject_kind: string;
  merged_into: string | null;
  root_id: string;
  created_at: number;
  [column: string]: SqlStorageValue;
}

const record = (row: ProfileRow): ProfileRecord => ({
  seq: row.seq,
  profileId: row.profile_id,
  subjectKind: row.subject_kind as SubjectKind,
  mergedInto: row.merged_into,
  rootId: row.root_id,
  createdAt: row.created_at,
});

export function createProfile(sql: SqlStorage, subjectKind: SubjectKind, now: number): string {
  const profileId = uuidv7(now);
  insertProfiles(sql, [{ profileId, subjectKind }], now);
  return profileId;
}

/** Stores new profiles, each its own root, in one statement (in the order given: `seq` follows it). */
export function insertProfiles(
  sql: SqlStorage,
  profiles: readonly { profileId: string; subjectKind: SubjectKind }[],
  now: number,
): void {
  if (profiles.length === 0) return;
  sql.exec(
    `INSERT INTO profiles (profile_id, subject_kind, merged_into, root_id, created_at)
     SELECT p.value ->> 0, p.value ->> 1, NULL, p.value ->> 0, ? FROM json_each(?) p`,
    now,
    JSON.stringify(profiles.map(({ profileId, subjectKind }) => [profileId, subjectKind])),
  );
}

export function findProfile(sql: SqlStorage, profileId: string): ProfileRecord | null {
  const row = sql.exec<ProfileRow>("SELECT * FROM profiles WHERE profile_id = ?", profileId).toArray()[0];
  return row ? record(row) : null;
}

/** The profile that answers for `profileId` now (itself unless merged), or null when there is none. */
export function rootOf(sql: SqlStorage, profileId: string): ProfileRecord | null {
  const row = sql
    .exec<ProfileRow>(
      "SELECT root.* FROM profiles p JOIN profiles root ON root.profile_id = p.root_id WHERE p.profile_id = ?",
      profileId,
    )
    .toArray()[0];
  return row ? record(row) : null;
}

/** The root of each of `profileIds` that exists, in one statement. */
export function rootsOf(sql: SqlStorage, profileIds: readonly string[]): Map<string, string> {
  const rows = sql.exec<{ profile_id: string; root_id: string }>(
    "SELECT p.profile_id, p.root_id FROM json_each(?) j CROSS JOIN profiles p WHERE p.profile_id = j.value",
    JSON.stringify(profileIds),
  );
  return new Map([...rows].map((row) => [row.profile_id, row.root_id]));
}

/** The profile ids a root answers for: itself and every profile merged into it, at any depth. */
export function membersOf(sql: SqlStorage, rootId: string): string[] {
  return sql
    .exec<{ profile_id: string }>("SELECT profile_id FROM profiles WHERE root_id = ? ORDER BY seq", rootId)
    .toArray()
    .map((row) => row.profile_id);
}

/** The members of each of `rootIds` (`membersOf` for many, in one statement); a root with none is absent. */
export function membersOfRoots(sql: SqlStorage, rootIds: readonly string[]): Map<string, string[]> {
  const members = new Map<string, string[]>();
  if (rootIds.length === 0) return members;
  for (const [rootId, profileId] of sql
    .exec(
      "SELECT p.root_id, p.profile_id FROM json_each(?) r CROSS JOIN profiles p ON p.root_id = r.value ORDER BY p.seq",
      JSON.stringify(rootIds),
    )
    .raw<[string, string]>()) {
    const list = members.get(rootId) ?? [];
    list.push(profileId);
    members.set(rootId, list);
  }
  return members;
}

/** Points `absorbedRoot` and everything that answered to it at `survivorRoot`: O(profiles of the absorbed side). */
export function attachProfile(sql: SqlStorage, absorbedRoot: string, survivorRoot: string): void {
  sql.exec("UPDATE profiles SET merged_into = ? WHERE profile_id = ?", survivorRoot, absorbedRoot);
  sql.exec("UPDATE profiles SET root_id = ? WHERE root_id = ?", survivorRoot, absorbedRoot);
}

/**
 * Detaches `profileId` from the profile it was merged into: it and every profile merged into it
 * (directly or through others) answer to it again. O(profiles below it), never O(events).
 */
export function detachProfile(sql: SqlStorage, profileId: string): void {
  const root = findProfile(sql, profileId)?.rootId ?? profileId;
  sql.exec("UPDATE profiles SET merged_into = NULL WHERE profile_id = ?", profileId);
  // Everything below it answers to the same root: found through `root_id` (indexed), so that
  // `merged_into` needs no index of its own, which every new profile would write.
  const below = [profileId];
  for (let at = 0; at < below.length; at++) {
    const children = sql.exec<{ profile_id: string }>(
      "SELECT profile_id FROM profiles WHERE root_id = ? AND merged_into = ?",
      root,
      below[at] ?? "",
    );
    for (const child of children) below.push(child.profile_id);
  }
  for (const id of below) sql.exec("UPDATE profiles SET root_id = ? WHERE profile_id = ?", profileId, id);
}
