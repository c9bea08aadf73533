import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * File imports (SPEC "File import"; docs/api/imports.md), one row per `import_id`: the file's
 * place in R2, the key that sent it, its status and counts, and the offset its rows are stored
 * up to (`offset_byte` in the file, `offset_record` the last record number), committed with each
 * chunk's items. Column names only, never a value of the file. Owned by `imports/records.ts`.
 */
export const imports = sqliteTable("imports", {
  importId: text("import_id").primaryKey(),
  /** `csv` or `ndjson`. */
  format: text("format").notNull(),
  objectKey: text("object_key").notNull(),
  /** 1: the file was sent to `POST /v1/ingest/files` and is deleted when its import ends; 0: a media upload's, left to media. */
  ownFile: integer("own_file").notNull(),
  fileSha256: text("file_sha256").notNull(),
  sizeBytes: integer("size_bytes").notNull(),
  keyId: text("key_id").notNull(),
  /** `receiving` (the file is on its way to R2; not shown), `queued`, `running`, `completed`, `failed`. */
  status: text("status").notNull(),
  reason: text("reason"),
  offsetByte: integer("offset_byte").notNull().default(0),
  offsetRecord: integer("offset_record").notNull().default(0),
  records: integer("records").notNull().default(0),
  accepted: integer("accepted").notNull().default(0),
  duplicates: integer("duplicates").notNull().default(0),
  rejected: integer("rejected").notNull().default(0),
  createdAt: integer("created_at").notNull(),
  startedAt: integer("started_at"),
  completedAt: integer("completed_at"),
});

/**
 * The first 100 row errors of each import: the record number, a code and a detail that names
 * fields and rules, never a value. Owned by `imports/records.ts`.
 */
export const importErrors = sqliteTable(
  "import_errors",
  {
    importId: text("import_id").notNull(),
    row: integer("row").notNull(),
    code: text("code").notNull(),
    detail: text("detail").notNull(),
  },
  (table) => [primaryKey({ columns: [table.importId, table.row] })],
);

/**
 * Which records of an import were stored as items of which profile: what an import holds of a
 * subject, erased with it (`imports/erasure.ts`). Owned by `imports/chunks.ts`.
 */
export const importRows = sqliteTable(
  "import_rows",
  {
    importId: text("import_id").notNull(),
    row: integer("row").notNull(),
    profileId: text("profile_id").notNull(),
  },
  (table) => [primaryKey({ columns: [table.importId, table.row] }), index("import_rows_profile").on(table.profileId)],
);
