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

export function noteObjectOwner(sql: SqlStorage, objectType: string, objectId: string, profileId: string): void {
  sql.exec(
    "INSERT OR IGNORE INTO object_owners (object_type, object_id, profile_id) VALUES (?, ?, ?)",
    objectType,
    objectId,
    profileId,
  );
}
