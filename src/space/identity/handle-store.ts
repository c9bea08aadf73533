import type { Level } from "../../contract/common";
import { uuidv7 } from "../../ids";
import { InboxKeys } from "../inbox-keys";
import { foldInboxesWithin } from "../timers";
import type { Handle } from "./handles";

export type HandleStatus = "active" | "detached" | "erased";

export interface HandleRecord extends Handle {
  handleId: string;
  profileId: string;
  status: HandleStatus;
  level: Level;
  firstSeen: number;
  lastSeen: number;
  sources: string[];
}

interface HandleRow {
  handle_id: string;
  type: string;
  scope: string;
  value: string;
  profile_id: string;
  status: string;
  level: string;
  first_seen: number;
  last_seen: number;
  sources: string;
  [column: string]: SqlStorageValue;
}

const record = (row: HandleRow): HandleRecord => ({
  handleId: row.handle_id,
  type: row.type,
  scope: row.scope,
  value: row.value,
  profileId: row.profile_id,
  status: row.status as HandleStatus,
  level: row.level as Level,
  firstSeen: row.first_seen,
  lastSeen: row.last_seen,
  sources: JSON.parse(row.sources) as string[],
});

export function findHandle(sql: SqlStorage, handle: Handle): HandleRecord | null {
  const row = sql
    .exec<HandleRow>("SELECT * FROM handles WHERE type = ? AND scope = ? AND value = ?", handle.type, handle.scope, handle.value)
    .toArray()[0];
  return row ? record(row) : null;
}

/** Every stored handle among `handles`, in one statement (a JSON array: SQLite binds at most 100 values). */
export function findHandles(sql: SqlStorage, handles: readonly Handle[]): HandleRecord[] {
  if (handles.length === 0) return [];
  return sql
    .exec<HandleRow>(
      `SELECT h.* FROM json_each(?) j CROSS JOIN handles h
       WHERE h.type = j.value ->> 0 AND h.scope = j.value ->> 1 AND h.value = j.value ->> 2`,
      JSON.stringify(handles.map((handle) => [handle.type, handle.scope, handle.value])),
    )
    .toArray()
    .map(record);
}

/**
 * The handle that stands for a root profile (in a suggestion): its first active one, as a
 * subquery over the SQL expression `root` (a root's id), for statements that read it per row.
 */
export const firstActiveHandleOf = (root: string): string =>
  `(SELECT min(h.handle_id) FROM profiles p CROSS JOIN handles h
    WHERE p.root_id = ${root} AND h.profile_id = p.profile_id AND h.status = 'active')`;

/** A handle with its seen times as they stand (a view of it shows them). */
export function findHandleById(sql: SqlStorage, handleId: string): HandleRecord | null {
  const row = sql.exec<HandleRow>("SELECT * FROM handles WHERE handle_id = ?", handleId).toArray()[0];
  return row ? (withSightings(sql, [record(row)])[0] ?? null) : null;
}

/** A handle first seen now, in `profileId`: not stored until `insertHandles`. */
export function newHandle(handle: Handle, profileId: string, seenAt: number, sourceId: string | null, now: number): HandleRecord {
  return {
    ...handle,
    handleId: uuidv7(now),
    profileId,
    status: "active",
    level: "V0",
    firstSeen: seenAt,
    lastSeen: seenAt,
    sources: sourceId === null ? [] : [sourceId],
  };
}

/** Stores new handles in one statement. */
export function insertHandles(sql: SqlStorage, records: readonly HandleRecord[]): void {
  if (records.length === 0) return;
  sql.exec(
    `INSERT INTO handles (handle_id, type, scope, value, profile_id, status, level, first_seen, last_seen, sources)
     SELECT h.value ->> 0, h.value ->> 1, h.value ->> 2, h.value ->> 3, h.value ->> 4, h.value ->> 5, h.value ->> 6, h.value ->> 7, h.value ->> 8, h.value ->> 9
     FROM json_each(?) h`,
    JSON.stringify(
      records.map((r) => [
        r.handleId,
        r.type,
        r.scope,
        r.value,
        r.profileId,
        r.status,
        r.level,
        r.firstSeen,
        r.lastSeen,
        JSON.stringify(r.sources),
      ]),
    ),
  );
}

/** The handles with sightings not folded yet: a view of any other handle reads `handles` alone. */
const sightedHandles = new InboxKeys("handle_sightings", "handle_id");

/**
 * Widens handles' first and last seen times to include theirs (memory time, not arrival): one
 * append to `handle_sightings`, folded into `handles` later (`foldSightings`). Records read from
 * `handles` hold the folded times; a view of them reads the sightings too (`withSightings`).
 */
export function touchHandles(
  sql: SqlStorage,
  seen: readonly { handleId: string; first: number; last: number }[],
  now: number,
): void {
  if (seen.length === 0) return;
  sql.exec(
    `INSERT INTO handle_sightings (handle_id, first_seen, last_seen)
     SELECT s.value ->> 0, s.value ->> 1, s.value ->> 2 FROM json_each(?) s`,
    JSON.stringify(seen.map(({ handleId, first, last }) => [handleId, first, last])),
  );
  sightedHandles.appended(
    sql,
    seen.map(({ handleId }) => handleId),
  );
  foldInboxesWithin(sql, now);
}

/** Writes the sightings into `handles`, each handle once, and empties them. */
export function foldSightings(sql: SqlStorage): void {
  sql.exec(
    `UPDATE handles SET first_seen = min(handles.first_seen, s.first_seen), last_seen = max(handles.last_seen, s.last_seen)
     FROM (SELECT handle_id, min(first_seen) AS first_seen, max(last_seen) AS last_seen FROM handle_sightings GROUP BY handle_id) s
     WHERE handles.handle_id = s.handle_id`,
  );
  sql.exec("DELETE FROM handle_sightings");
  sightedHandles.folded(sql);
}

/** Records with the seen times not folded yet (the sightings have no index: they are a second of batches at most). */
export function withSightings(sql: SqlStorage, records: HandleRecord[]): HandleRecord[] {
  const handleIds = records.map((record) => record.handleId);
  if (!sightedHandles.mayHold(sql, handleIds)) return records;
  const rows = sql.exec<{ handle_id: string; first_seen: number; last_seen: number }>(
    `SELECT handle_id, min(first_seen) AS first_seen, max(last_seen) AS last_seen FROM handle_sightings
     WHERE handle_id IN (SELECT value FROM json_each(?)) GROUP BY handle_id`,
    JSON.stringify(handleIds),
  );
  const seen = new Map([...rows].map((row) => [row.handle_id, row]));
  for (const record of records) {
    const sighting = seen.get(record.handleId);
    if (!sighting) continue;
    record.firstSeen = Math.min(record.firstSeen, sighting.first_seen);
    record.lastSeen = Math.max(record.lastSeen, sighting.last_seen);
  }
  return records;
}

export function setHandleLevel(sql: SqlStorage, handleId: string, level: Level): void {
  sql.exec("UPDATE handles SET level = ? WHERE handle_id = ?", level, handleId);
}

/** Records that `sourceId` wrote the handle; the record is updated too. Writes only for a new source. */
export function noteHandleSource(sql: SqlStorage, record: HandleRecord, sourceId: string): void {
  if (record.sources.includes(sourceId)) return;
  record.sources = [...record.sources, sourceId];
  sql.exec("UPDATE handles SET sources = ? WHERE handle_id = ?", JSON.stringify(record.sources), record.handleId);
}

/** Every handle of a profile and of the profiles merged into it, oldest first, with their seen times as they stand. */
export function handlesOfRoot(sql: SqlStorage, rootId: string): HandleRecord[] {
  const records = sql
    .exec<HandleRow>(
      "SELECT h.* FROM handles h JOIN profiles p ON p.profile_id = h.profile_id WHERE p.root_id = ? ORDER BY h.handle_id",
      rootId,
    )
    .toArray()
    .map(record);
  return withSightings(sql, records);
}

/** The type and value of each active handle a profile holds itself (not its merged members'). */
export function heldHandles(sql: SqlStorage, profileId: string): { type: string; value: string }[] {
  return sql
    .exec<{ type: string; value: string }>(
      "SELECT type, value FROM handles WHERE profile_id = ? AND status = 'active' ORDER BY handle_id",
      profileId,
    )
    .toArray();
}

/** The ids of a root's handles that one of `sourceIds` wrote (a JSON array: SQLite binds at most 100 values). */
export function handlesFromSources(sql: SqlStorage, rootId: string, sourceIds: readonly string[]): Set<string> {
  const rows = sql
    .exec<{ handle_id: string }>(
      `SELECT h.handle_id FROM handles h JOIN profiles p ON p.profile_id = h.profile_id
       WHERE p.root_id = ? AND EXISTS (SELECT 1 FROM json_each(h.sources) s WHERE s.value IN (SELECT value FROM json_each(?)))`,
      rootId,
      JSON.stringify(sourceIds),
    )
    .toArray();
  return new Set(rows.map((row) => row.handle_id));
}
