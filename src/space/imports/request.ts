import { IMPORT_FORMATS, type ImportFormat, MAX_IMPORT_BYTES } from "../../contract/imports";
import { Problem } from "../../http/problem";

/** What the edge tells the space of a `POST /v1/ingest/files` before its body is read. */
export interface ImportRequest {
  /** The `Content-Type` as sent (null: none). */
  contentType: string | null;
  /** The `Content-Length` as sent (null: none, a chunked body). */
  contentLength: number | null;
}

/** The format the `Content-Type` names (parameters aside; a `charset` must be UTF-8). */
function formatOf(contentType: string | null): ImportFormat {
  const [media = "", ...parameters] = (contentType ?? "").split(";").map((part) => part.trim().toLowerCase());
  const format = IMPORT_FORMATS[media as keyof typeof IMPORT_FORMATS];
  if (!format) throw new Problem("invalid_input", "header.content-type: must be text/csv or application/x-ndjson");
  const charset = parameters.find((parameter) => parameter.startsWith("charset="))?.slice("charset=".length);
  if (charset !== undefined && charset.replaceAll('"', "") !== "utf-8") {
    throw new Problem("invalid_input", "header.content-type: the charset must be utf-8");
  }
  return format;
}

/**
 * The body form: the file itself, of a declared length (R2 stores a stream of known length;
 * every HTTP client sends one for a file) within SPEC's 512 MB, refused before a byte is read.
 */
export function checkedBodyImport(request: ImportRequest): ImportFormat {
  const format = formatOf(request.contentType);
  if (request.contentLength === null) throw new Problem("invalid_input", "header.content-length: required");
  if (request.contentLength > MAX_IMPORT_BYTES) {
    throw new Problem("invalid_input", "body: larger than 512 MB");
  }
  return format;
}

/**
 * The `media_ref` form: the file is the upload's, and there is no body. A body of unknown length
 * (chunked: a stream without `Content-Length`, null here) is a body too, whatever it holds.
 */
export function checkedUploadImport(request: ImportRequest): ImportFormat {
  const format = formatOf(request.contentType);
  if (request.contentLength !== 0) throw new Problem("invalid_input", "body: must be empty with query.media_ref");
  return format;
}
