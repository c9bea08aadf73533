/**
 * R2 wants every part of a multipart upload but the last of one size, at least 5 MiB: the file is
 * cut into parts of exactly this many bytes, whatever the lines.
 */
export const PART_BYTES = 5 * 1024 * 1024;

const CONTENT = { httpMetadata: { contentType: "application/x-ndjson" } };

/**
 * An export file being written to R2: lines are buffered until a whole part is there, and only a
 * part (5 MiB) is ever held. A file of one part is written with one `put`; a larger one as a
 * multipart upload, completed by `close`.
 */
export class ExportFile {
  #chunks: Uint8Array[] = [];
  #buffered = 0;
  #upload: R2MultipartUpload | null = null;
  #parts: R2UploadedPart[] = [];
  #encoder = new TextEncoder();
  bytes = 0;

  constructor(
    private readonly bucket: R2Bucket,
    readonly key: string,
  ) {}

  /** The multipart upload's id once one was started (kept so that a restart or forget can abort it). */
  get uploadId(): string | null {
    return this.#upload?.uploadId ?? null;
  }

  append(lines: readonly string[]): void {
    if (lines.length === 0) return;
    const chunk = this.#encoder.encode(lines.join(""));
    this.#chunks.push(chunk);
    this.#buffered += chunk.byteLength;
    this.bytes += chunk.byteLength;
  }

  /** Uploads every whole part the buffer holds. */
  async flush(): Promise<void> {
    while (this.#buffered >= PART_BYTES) {
      this.#upload ??= await this.bucket.createMultipartUpload(this.key, CONTENT);
      const part = this.#take(PART_BYTES);
      this.#parts.push(await this.#upload.uploadPart(this.#parts.length + 1, part));
    }
  }

  /** Writes what is left and makes the object whole; its size in bytes. */
  async close(): Promise<number> {
    await this.flush();
    const rest = this.#take(this.#buffered);
    if (this.#upload === null) {
      await this.bucket.put(this.key, rest, CONTENT);
    } else {
      if (rest.byteLength > 0) this.#parts.push(await this.#upload.uploadPart(this.#parts.length + 1, rest));
      await this.#upload.complete(this.#parts);
    }
    return this.bytes;
  }

  #take(length: number): Uint8Array {
    const out = new Uint8Array(length);
    let at = 0;
    while (at < length) {
      const chunk = this.#chunks[0];
      if (!chunk) break;
      const used = Math.min(chunk.byteLength, length - at);
      out.set(chunk.subarray(0, used), at);
      at += used;
      if (used === chunk.byteLength) this.#chunks.shift();
      else this.#chunks[0] = chunk.subarray(used);
    }
    this.#buffered -= length;
    return out;
  }
}

/** Aborts a multipart upload left by an earlier attempt (or an object that restarted); one already gone is fine. */
export async function abortUpload(bucket: R2Bucket, key: string, uploadId: string): Promise<void> {
  try {
    await bucket.resumeMultipartUpload(key, uploadId).abort();
  } catch {
    // Completed or aborted before: nothing left to abort.
  }
}
