/** The profile an object (`order` `o-1`) was first seen with, so that an event about the object alone finds its customer. */
export function objectOwner(sql: SqlStorage, objectType: string, objectId: string): string | null {
  return (
    sql
      .exec<{ profile_id: string }>(
        "SELECT profile_id FROM object_owners WHERE object_type = ? AND object_id = ?",
        objectType,
        objectId,
      )
      .toArray()[0]?.profile_id ?? null
  );
}

/** Records the owners of objects not seen before, in one statement (an object keeps its first owner). */
export function noteObjectOwners(sql: SqlStorage, owners: readonly { type: string; id: string; profileId: string }[]): void {
  if (owners.length === 0) return;
  sql.exec(
    "INSERT OR IGNORE INTO object_owners (object_type, object_id, profile_id) SELECT o.value ->> 0, o.value ->> 1, o.value ->> 2 FROM json_each(?) o",
    JSON.stringify(owners.map((owner) => [owner.type, owner.id, owner.profileId])),
  );
}
