import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Exports of a subject's data (docs/api/privacy.md): the record of each and where its file is in
 * R2. Owned by `records.ts`. The file holds personal data, so forget deletes it and these rows
 * (`export_profiles` says which subjects an export holds).
 */
export const exports = sqliteTable("exports", {
  exportId: text("export_id").primaryKey(),
  /** The root profile when the export was asked. */
  profileId: text("profile_id").notNull(),
  state: text("state").notNull(),
  /** `spaces/<space>/exports/<export_id>` in the `FILES` bucket. */
  objectKey: text("object_key").notNull(),
  /** A multipart upload in progress (aborted by a restart or by forget). */
  uploadId: text("upload_id"),
  attempts: integer("attempts").notNull(),
  counts: text("counts").notNull(),
  bytes: integer("bytes"),
  requestedBy: text("requested_by").notNull(),
  createdAt: integer("created_at").notNull(),
  completedAt: integer("completed_at"),
});

/** Every profile an export holds data of: its root and the profiles merged into it then. Owned by `records.ts`. */
export const exportProfiles = sqliteTable(
  "export_profiles",
  {
    exportId: text("export_id").notNull(),
    profileId: text("profile_id").notNull(),
  },
  (table) => [primaryKey({ columns: [table.exportId, table.profileId] }), index("export_profiles_profile").on(table.profileId)],
);
