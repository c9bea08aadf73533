import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Upload reservations and the files they became (SPEC "Upload reservation"; docs/api/media.md),
 * one row per `media_ref`, its bytes in R2 at `spaces/<space>/media/<media_ref>`. `status` is
 * `reserved` until the bytes are in R2, then `stored`. `profile_id` is the subject it was reserved
 * under (null without one), indexed so that erasing the subject finds its files. Owned by
 * `media/reservations.ts`.
 */
export const media = sqliteTable(
  "media",
  {
    mediaRef: text("media_ref").primaryKey(),
    contentType: text("content_type").notNull(),
    sizeBytes: integer("size_bytes").notNull(),
    sha256: text("sha256").notNull(),
    profileId: text("profile_id"),
    /** Who reserved it: `key:<key id>` or `person:<person id>`. */
    reservedBy: text("reserved_by").notNull(),
    status: text("status").notNull(),
    reservedAt: integer("reserved_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    storedAt: integer("stored_at"),
  },
  (table) => [index("media_profile").on(table.profileId)],
);

/**
 * Which stored events point to which file, by the profile the event was resolved to: erasing a
 * subject finds the files its events point to here, whoever reserved them. Written only for
 * events that carry `content.media_ref`. Owned by `media/references.ts`.
 */
export const mediaReferences = sqliteTable(
  "media_references",
  {
    mediaRef: text("media_ref").notNull(),
    itemId: text("item_id").notNull(),
    profileId: text("profile_id").notNull(),
  },
  (table) => [primaryKey({ columns: [table.mediaRef, table.itemId] }), index("media_references_profile").on(table.profileId)],
);
