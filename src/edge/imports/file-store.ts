import { Problem } from "../../http/problem";
import type { ImportRequest } from "../../space/imports/request";

const EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/**
 * Streams an import's body into R2 without holding it (docs/api/imports.md): through a
 * `FixedLengthStream` of the declared length (R2 stores a stream of known length; the runtime
 * holds the body to its `Content-Length`) and a SHA-256 of every byte on the way, which CSV
 * records without an `idempotency_key` derive theirs from. R2 writes an object whole or not at
 * all: a body cut short leaves nothing.
 */
export async function storeImportFile(
  files: R2Bucket,
  key: string,
  body: ReadableStream<Uint8Array> | null,
  request: ImportRequest,
): Promise<{ sha256: string; sizeBytes: number }> {
  const length = request.contentLength ?? 0;
  if (!body || length === 0) {
    await body?.cancel();
    await files.put(key, "", { httpMetadata: { contentType: request.contentType ?? "" } });
    return { sha256: EMPTY_SHA256, sizeBytes: 0 };
  }
  const digest = new crypto.DigestStream("SHA-256");
  const hashing = digest.getWriter();
  const hashed = new TransformStream<Uint8Array, Uint8Array>({
    async transform(chunk, controller) {
      await hashing.write(chunk);
      controller.enqueue(chunk);
    },
    async flush() {
      await hashing.close();
    },
  });
  const sized = new FixedLengthStream(length);
  let unreadable = false;
  const piping = body
    .pipeThrough(hashed)
    .pipeTo(sized.writable)
    .catch(() => {
      unreadable = true;
    });
  try {
    await files.put(key, sized.readable, { httpMetadata: { contentType: request.contentType ?? "" } });
  } catch (error) {
    await piping;
    if (unreadable || error instanceof TypeError) throw new Problem("invalid_input", "body: not_read_whole");
    throw error;
  }
  await piping;
  if (unreadable) {
    await files.delete(key);
    throw new Problem("invalid_input", "body: not_read_whole");
  }
  const sha256 = [...new Uint8Array(await digest.digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
  return { sha256, sizeBytes: length };
}
