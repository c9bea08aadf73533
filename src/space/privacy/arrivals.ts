import type { BatchItem } from "../../contract/batch";
import type { Handle } from "../identity/handles";

/**
 * What wins when a batch about a subject arrives while its erasure runs: the erasure
 * (docs/api/privacy.md "A batch during an erasure"). An item that names one of the subject's
 * handles, one of its profile ids, or an object it owned is stored as a tombstone at once (its
 * key kept, so a resend is a duplicate) and counted in the receipt; nothing else of it is written.
 * Once the receipt is issued the handles are free: a later event starts a new subject.
 *
 * Answers, for each candidate by index, the erasure it belongs to. One indexed read per kind of
 * reference, and none at all while no erasure runs.
 */
export function arrivalsUnderErasure(
  sql: SqlStorage,
  candidates: readonly { item: BatchItem; handles: readonly Handle[] }[],
): Map<number, string> {
  const found = new Map<number, string>();
  if (sql.exec("SELECT 1 FROM erasure_profiles LIMIT 1").toArray().length === 0) return found;
  const handles = new Map(
    sql
      .exec<{ type: string; scope: string; value: string; receipt_id: string }>(
        `SELECT e.type, e.scope, e.value, e.receipt_id FROM json_each(?) j CROSS JOIN erasure_handles e
         WHERE e.type = j.value ->> 0 AND e.scope = j.value ->> 1 AND e.value = j.value ->> 2`,
        JSON.stringify(candidates.flatMap(({ handles }) => handles.map((h) => [h.type, h.scope, h.value]))),
      )
      .toArray()
      .map((row) => [`${row.type}\n${row.scope}\n${row.value}`, row.receipt_id]),
  );
  const profiles = erasingProfiles(sql);
  candidates.forEach(({ item, handles: named }, index) => {
    const byHandle = named.map((h) => handles.get(`${h.type}\n${h.scope}\n${h.value}`)).find((id) => id !== undefined);
    const profileId = item.type === "event" && item.subject && "profile_id" in item.subject ? item.subject.profile_id : null;
    const byProfile = profileId === null ? undefined : profiles.get(profileId);
    const object = item.type === "event" ? (item.object ?? (item.kind === "action" ? item.action : undefined)) : undefined;
    const byObject = object ? ownerUnderErasure(sql, object.object_type, object.object_id) : undefined;
    const receipt = byHandle ?? byProfile ?? byObject;
    if (receipt !== undefined) found.set(index, receipt);
  });
  return found;
}

/**
 * Whether a handle belongs to a subject being erased: a route that would create a profile for an
 * unknown handle (a link, a media reservation) answers `404` instead, as every read of the subject
 * does, so that nothing of it is made again before its receipt.
 */
export function handleUnderErasure(sql: SqlStorage, handle: Handle): boolean {
  return (
    sql
      .exec("SELECT 1 FROM erasure_handles WHERE type = ? AND scope = ? AND value = ?", handle.type, handle.scope, handle.value)
      .toArray().length > 0
  );
}

/** Profiles being erased, by id, with their erasure. */
export function erasingProfiles(sql: SqlStorage): Map<string, string> {
  const rows = sql.exec<{ profile_id: string; receipt_id: string }>("SELECT profile_id, receipt_id FROM erasure_profiles");
  return new Map([...rows].map((row) => [row.profile_id, row.receipt_id]));
}

function ownerUnderErasure(sql: SqlStorage, objectType: string, objectId: string): string | undefined {
  return sql
    .exec<{ receipt_id: string }>(
      `SELECT e.receipt_id FROM object_owners o CROSS JOIN erasure_profiles e
       WHERE o.object_type = ? AND o.object_id = ? AND e.profile_id = o.profile_id`,
      objectType,
      objectId,
    )
    .toArray()[0]?.receipt_id;
}
