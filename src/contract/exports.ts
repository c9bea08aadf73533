import { z } from "@hono/zod-openapi";
import { IdentifierSchema, integer, TimestampSchema, text, UuidSchema } from "./common";
import { exactlyOne, withRules } from "./shape-rules";

export const ExportInputSchema = withRules(
  z.strictObject({ handle: IdentifierSchema.optional(), profile_id: UuidSchema.optional() }),
  [exactlyOne(["handle", "profile_id"], "needs_handle_or_profile_id")],
).openapi("ExportInput", {
  description: "The subject: a handle it holds, or a profile id (a merged-away id exports its survivor). Exactly one.",
});

export const EXPORT_STATES = ["running", "completed", "failed"] as const;

export const ExportCountsSchema = z
  .object({
    profiles: integer(0).openapi({ description: "The profile and every profile merged into it." }),
    handles: integer(0),
    events: integer(0),
    episodes: integer(0),
    facts: integer(0),
    open_items: integer(0),
    promises: integer(0),
    objects: integer(0),
  })
  .openapi("ExportCounts", { description: "Lines written, by `record`; the header line is not counted." });

export const ExportSchema = z
  .object({
    export_id: z.string(),
    state: z.enum(EXPORT_STATES).openapi({
      description:
        "`running` while slices are written, `completed` when the file is whole, `failed` when storing it failed three times.",
    }),
    profile_id: z.string().openapi({ description: "The subject's profile as it resolved when the export was asked." }),
    counts: ExportCountsSchema,
    bytes: integer(0).nullable().openapi({ description: "The file's size once completed." }),
    created_at: TimestampSchema,
    completed_at: TimestampSchema.nullable(),
    download: z
      .object({
        url: z.string().openapi({
          description:
            "Served without `Authorization`: in development a route of this service with a signed token, in production an R2 presigned URL. Carries no personal data.",
        }),
        expires_at: TimestampSchema,
      })
      .nullable()
      .openapi({ description: "A fresh link with each read of a completed export; null before." }),
  })
  .openapi("Export");

export const ExportParamsSchema = z.object({ export_id: text(1, 128) });

export const DownloadQuerySchema = z.strictObject({
  token: text(1, 256).openapi({ description: "`<expiry in Unix seconds>.<HMAC-SHA256, base64url>`, as the link gives it." }),
});

export type ExportInput = z.infer<typeof ExportInputSchema>;
export type ExportRecord = z.infer<typeof ExportSchema>;
export type ExportCounts = z.infer<typeof ExportCountsSchema>;
export type ExportState = (typeof EXPORT_STATES)[number];
