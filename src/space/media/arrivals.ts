import { mediaKey } from "./keys";
import type { MediaRecord } from "./reservations";

/**
 * The reservations among `records` whose bytes R2 holds at the reserved length and hash: what a
 * presigned upload put there without this service knowing (R2 checked the signed SHA-256).
 */
export async function arrivedInR2(files: R2Bucket, space: string, records: readonly MediaRecord[]): Promise<string[]> {
  const arrived = await Promise.all(
    records.map(async (record) => {
      const object = await files.head(mediaKey(space, record.mediaRef));
      const sha256 = object?.checksums.sha256;
      const hash = sha256 ? [...new Uint8Array(sha256)].map((byte) => byte.toString(16).padStart(2, "0")).join("") : null;
      return object && object.size === record.sizeBytes && (hash === null || hash === record.sha256) ? [record.mediaRef] : [];
    }),
  );
  return arrived.flat();
}
