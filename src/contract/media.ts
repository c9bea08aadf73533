import { z } from "@hono/zod-openapi";
import { IdentifierSchema, integer, TimestampSchema, text } from "./common";

/** SPEC limits: a media file is at most 500 MB (decimal, as the batch's 2.5 MB is 2,500,000 bytes). */
export const MAX_MEDIA_BYTES = 500_000_000;

/**
 * A `media_ref` wherever a request names one (`content.media_ref` of an event, the development
 * store's path, a file import's query): 1 to 128 characters, one rule everywhere. The service
 * makes them UUIDs (36 characters), so no longer one ever named a file.
 */
export const MediaRefSchema = text(1, 128);

/** A SHA-256 as hex, lower case: `sha256` of a reservation and `content.media_sha256` of an event alike. */
export const SHA256_PATTERN = /^[0-9a-f]{64}$/;
export const Sha256Schema = z
  .string()
  .regex(SHA256_PATTERN)
  .openapi({ description: "SHA-256 of the bytes: 64 hex digits, lower case." });

/**
 * A media type as the upload's `Content-Type` must carry it, byte for byte: `type/subtype`, then
 * parameters `; name=value` whose values are tokens (no quoted strings, which could be written
 * two ways). RFC 9110's token characters; at most 255 characters.
 */
export const CONTENT_TYPE_PATTERN =
  /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(?:; ?[A-Za-z0-9!#$&^_.+-]+=[A-Za-z0-9!#$&^_.+-]+)*$/;
export const ContentTypeSchema = text(3, 255).regex(CONTENT_TYPE_PATTERN).openapi({
  pattern: CONTENT_TYPE_PATTERN.source,
  example: "audio/ogg",
  description: "The media type the upload carries as `Content-Type`, exactly: `type/subtype`, token parameters allowed.",
});

export const UploadReservationInputSchema = z
  .strictObject({
    content_type: ContentTypeSchema,
    size_bytes: integer(1, MAX_MEDIA_BYTES).openapi({ description: "Exact length of the upload: 1 byte to 500 MB." }),
    sha256: Sha256Schema,
    subject: IdentifierSchema.optional(),
  })
  .openapi("UploadReservationInput", {
    description:
      "`subject`, optional: whom the file is about, a handle (a profile is created for one the space does not know, as a link does). The file is stored under that subject: erasing the subject erases it even when no event points to it.",
  });

export type UploadReservationInput = z.infer<typeof UploadReservationInputSchema>;

export const UploadReservationSchema = z
  .object({
    media_ref: z.string().openapi({ description: "What an event names in `content.media_ref`, with `content.media_sha256`." }),
    upload_url: z.url().openapi({ description: "Where to `PUT` the bytes, once, before `expires_at`." }),
    upload_headers: z.record(z.string(), z.string()).openapi({
      description:
        "Headers the `PUT` must carry, each with exactly this value: `Content-Type`, `Content-Length`, `x-amz-checksum-sha256`, `x-amz-content-sha256` (and `X-Upload-Token` under `npm run dev`). The store refuses any other bytes.",
    }),
    expires_at: TimestampSchema,
  })
  .openapi("UploadReservation");

export type UploadReservation = z.infer<typeof UploadReservationSchema>;

/** What the development store answers to an upload it kept. */
export const StoredMediaSchema = z
  .object({
    media_ref: z.string(),
    size_bytes: integer(1, MAX_MEDIA_BYTES),
    sha256: Sha256Schema,
    stored_at: TimestampSchema,
  })
  .openapi("StoredMedia");

export type StoredMedia = z.infer<typeof StoredMediaSchema>;

/** The path of the development store's upload route. */
export const MediaRefParamsSchema = z.object({ media_ref: MediaRefSchema });
