import { IMPORT_FORMATS, type ImportFormat } from "../../contract/imports";
import { Problem } from "../../http/problem";
import { mediaCheckOf } from "../media/batch-media";
import { mediaKey } from "../media/keys";
import { mediaRecords } from "../media/reservations";

/**
 * The file of the `media_ref` form of `POST /v1/ingest/files` (docs/api/imports.md "Files over
 * the request limit"): an upload of this space whose bytes R2 holds (a presigned upload is
 * found there as an event's reference finds it), reserved with the request's media type.
 */
export async function uploadToImport(
  sql: SqlStorage,
  files: R2Bucket,
  space: string,
  upload: { mediaRef: string; format: ImportFormat },
  clock: () => number,
): Promise<{ objectKey: string; sha256: string; sizeBytes: number }> {
  await mediaCheckOf(sql, files, space, { items: [{ content: { media_ref: upload.mediaRef } }] }, clock);
  const record = mediaRecords(sql, [upload.mediaRef]).get(upload.mediaRef);
  if (!record || record.status === "erased") throw new Problem("not_found", "query.media_ref: no_such_media");
  if (record.status !== "stored") throw new Problem("invalid_input", "query.media_ref: not_uploaded");
  const reserved = record.contentType.split(";", 1)[0]?.trim().toLowerCase() ?? "";
  if (IMPORT_FORMATS[reserved as keyof typeof IMPORT_FORMATS] !== upload.format) {
    throw new Problem("invalid_input", "query.media_ref: reserved_with_another_content_type");
  }
  return { objectKey: mediaKey(space, record.mediaRef), sha256: record.sha256, sizeBytes: record.sizeBytes };
}
