import { arrivedInR2 } from "./arrivals";
import { MediaCheck, namedMediaRefs } from "./references";
import { markStored, mediaRecords } from "./reservations";

/**
 * What a batch's events may point to, read before the batch (none for a batch without media;
 * each chunk reads its files again, `MediaCheck.forChunk`). A presigned upload goes to R2 without
 * this object: a reservation still `reserved` whose bytes R2 holds, at the reserved length and
 * hash, is marked `stored` here when an event first points to it, and read again after that wait.
 */
export async function mediaCheckOf(
  sql: SqlStorage,
  files: R2Bucket,
  space: string,
  body: unknown,
  clock: () => number,
): Promise<MediaCheck> {
  const refs = namedMediaRefs(body);
  if (refs.length === 0) return MediaCheck.none;
  const records = mediaRecords(sql, refs);
  const waiting = [...records.values()].filter((record) => record.status === "reserved");
  if (waiting.length === 0) return new MediaCheck(records);
  markStored(sql, await arrivedInR2(files, space, waiting), clock());
  return new MediaCheck(mediaRecords(sql, refs));
}
