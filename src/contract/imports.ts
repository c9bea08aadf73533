import { z } from "@hono/zod-openapi";
import { ITEM_CODES } from "./batch";
import { integer, TimestampSchema, text } from "./common";
import { MediaRefSchema } from "./media";

/** SPEC limits: an import file is at most 512 MB (decimal, as the media's 500 MB). */
export const MAX_IMPORT_BYTES = 512_000_000;
/** SPEC limits: the status record shows the first 100 row errors. */
export const MAX_ROW_ERRORS = 100;

/** The two formats, by the `Content-Type` that names them. */
export const IMPORT_FORMATS = { "text/csv": "csv", "application/x-ndjson": "ndjson" } as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[keyof typeof IMPORT_FORMATS];

export const ImportQuerySchema = z.object({
  media_ref: MediaRefSchema.optional().openapi({
    description:
      "Import a file uploaded through `POST /v1/media/uploads` instead of sending it in the body (which must then be empty): the upload's `content_type` must be this request's `Content-Type`.",
  }),
});

export const ImportParamsSchema = z.object({ import_id: text(1, 128) });

export const ImportCreatedSchema = z.object({ import_id: z.string() }).openapi("ImportCreated");

export type ImportCreated = z.infer<typeof ImportCreatedSchema>;

export const RowErrorSchema = z
  .object({
    row: integer(1).openapi({
      description: "The 1-based record number: a CSV header is not counted; in NDJSON, the line number.",
    }),
    code: z.enum(ITEM_CODES),
    detail: z.string().openapi({ description: "The field and the rule; never a value of the file." }),
  })
  .openapi("RowError");

export const ImportStatusSchema = z
  .object({
    import_id: z.string(),
    status: z.enum(["queued", "running", "completed", "failed"]),
    records: integer(0).openapi({ description: "Records read so far (blank lines and empty CSV records are not records)." }),
    accepted: integer(0),
    duplicates: integer(0),
    rejected: integer(0),
    errors: z.array(RowErrorSchema).max(MAX_ROW_ERRORS).openapi({ description: "The first 100 row errors, by row." }),
    reason: z.string().nullable().openapi({
      description: "Why a `failed` import stopped (the file is not what it claims, the key was revoked...); null otherwise.",
    }),
    created_at: TimestampSchema,
    completed_at: TimestampSchema.nullable().openapi({ description: "When it ended, `completed` or `failed`." }),
  })
  .openapi("ImportStatus", {
    description: "Moves while the import runs: `queued`, `running`, then `completed` or `failed`.",
  });

export type ImportStatus = z.infer<typeof ImportStatusSchema>;
export type RowError = z.infer<typeof RowErrorSchema>;
