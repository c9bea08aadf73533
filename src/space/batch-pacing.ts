/** Items per transaction of a batch cut in chunks: a batch of 500 then lets requests in about every 10 ms. */
export const CHUNK_ITEMS = 100;
/** How long after a request other than a batch the batches keep giving way. */
export const OTHERS_WINDOW_MS = 1_000;

/**
 * When a batch is stored in chunks, so that a context read waits for one chunk and not for a
 * whole batch (a 500-item batch holds the object for 50 to 150 ms on the bench's machine). A
 * chunk is a commit of its own, and on that machine chunks of 100 cost a third of the ingest
 * rate (chunks of 250, a sixth): a batch is cut only while requests other than batches keep
 * coming, within `OTHERS_WINDOW_MS` of the last one, and stored whole when nobody waits.
 */
export class BatchPacing {
  #otherAt = Number.NEGATIVE_INFINITY;

  /** A request other than a batch came in at `now` (ms, any monotonic clock). */
  otherRequest(now: number): void {
    this.#otherAt = now;
  }

  /** Items per transaction for a batch stored at `now`. */
  chunkItems(now: number): number {
    return now - this.#otherAt < OTHERS_WINDOW_MS ? CHUNK_ITEMS : Number.POSITIVE_INFINITY;
  }
}
