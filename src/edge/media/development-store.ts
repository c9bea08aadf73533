import { Problem } from "../../http/problem";
import { reservationHeaders } from "./upload-target";
import { UPLOAD_TOKEN_HEADER, type UploadGrant, verifyUploadToken } from "./upload-token";

/**
 * The development store (docs/api/media.md): what R2 does with a presigned `PUT`, done by this
 * Worker where local R2 has no S3 API. Every step refuses the way R2 would, before a byte is
 * kept: the token, then each header of the reservation, then the bytes themselves.
 */

/** The grant of the request's `X-Upload-Token` for this upload: a token that does not verify, names another upload or has expired is `401`. */
export async function grantOf(headers: Headers, key: CryptoKey, upload: { space: string; mediaRef: string }, now: number) {
  const token = headers.get(UPLOAD_TOKEN_HEADER);
  if (!token) throw new Problem("unauthenticated", `${UPLOAD_TOKEN_HEADER} missing: use the upload_headers of the reservation`);
  const grant = await verifyUploadToken(key, token);
  if (!grant || grant.space !== upload.space || grant.mediaRef !== upload.mediaRef) {
    throw new Problem("unauthenticated", `${UPLOAD_TOKEN_HEADER} is not the token of this upload`);
  }
  if (grant.expiresAt <= now) throw new Problem("unauthenticated", "the reservation has expired; reserve again");
  return grant;
}

/** Each header of the reservation, with exactly its value (HTTP compares names without case). */
export function checkUploadHeaders(headers: Headers, grant: UploadGrant): void {
  const wrong: string[] = [];
  for (const [name, value] of Object.entries(reservationHeaders(grant))) {
    const given = headers.get(name);
    if (given !== value) wrong.push(`header.${name.toLowerCase()}: ${given === null ? "required" : "not_as_reserved"}`);
  }
  if (wrong.length > 0) throw new Problem("invalid_input", wrong.join("; "));
}

/** R2's code for a SHA-256 that does not match the bytes (`put` with `sha256`). */
const SHA256_MISMATCH = /\b10037\b|SHA-256 checksum/;

/**
 * Streams the body into R2 without holding it: through a `FixedLengthStream` of the reserved
 * length (R2 needs the length up front, and the stream refuses a byte more or less), with the
 * reserved SHA-256 for R2 to check. R2 writes an object whole or not at all, so a refused upload
 * leaves nothing, and never replaces what a good one stored.
 */
export async function putUpload(files: R2Bucket, key: string, body: ReadableStream<Uint8Array> | null, grant: UploadGrant) {
  if (!body) throw new Problem("invalid_input", "body: required");
  const sized = new FixedLengthStream(grant.sizeBytes);
  // Its failure shows as the put's: the piping's own outcome is only waited for.
  const piping = body.pipeTo(sized.writable).catch(() => undefined);
  try {
    await files.put(key, sized.readable, { sha256: grant.sha256, httpMetadata: { contentType: grant.contentType } });
  } catch (error) {
    await piping;
    if (error instanceof TypeError) throw new Problem("invalid_input", "body: not_the_reserved_length");
    if (error instanceof Error && SHA256_MISMATCH.test(error.message)) {
      throw new Problem("invalid_input", "body: not_the_reserved_sha256");
    }
    throw error;
  }
  await piping;
}
