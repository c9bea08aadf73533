/** Items per transaction of a batch cut in chunks: a batch of 500 then lets requests in about every 10 ms. */
export const CHUNK_ITEMS = 100;
/** How long after a request other than a batch the batches keep giving way. */
export const OTHERS_WINDOW_MS = 1_000;
/**
 * A request other than a batch within this long means a reader is about: one waiting on its
 * answer sends the next within a few ms, or within a round (a compile round took 16 to 18 ms on
 * the bench's machine) if it waited behind one...
 */
export const READER_WINDOW_MS = 50;
/**
 * ...and then each round of the alarm is followed by this long without rounds. 10 rather than 6:
 * reads during an erasure 17.9 ms at their p99 against 22.4 (medians of five erasure runs each),
 * the erasure 3.6 s against 2.5 (docs/performance.md "The erasure").
 */
export const READER_PAUSE_MS = 10;

/**
 * How the object's work gives way to requests other than batches (reads, mostly), from when the
 * last of them came in or was answered:
 * - **Batches** are stored in chunks, so that a context read waits for one chunk and not for a
 *   whole batch (a 500-item batch holds the object for 50 to 150 ms on the bench's machine). A
 *   chunk is a commit of its own, and on that machine chunks of 100 cost a third of the ingest
 *   rate (chunks of 250, a sixth): a batch is cut only while such requests keep coming, within
 *   `OTHERS_WINDOW_MS` of the last one, and stored whole when nobody waits.
 * - **The alarm's rounds** (an erasure, the suggestions job, the compiler) hold the thread for a
 *   slice and its commit each, and under `wrangler dev` the edge shares that thread: a read waited
 *   for a round at each of its turns (the edge, the object, the answer), three rounds where a quiet
 *   read waits for none. While readers are about, each round is followed by `READER_PAUSE_MS` in
 *   which a read's turns run, so that a read waits for one round at most; a steady stream of reads
 *   slows a job by that pause a round and never stops it. Batches do not pause the rounds: a stream
 *   of them would hold every job back.
 */
export class RequestPacing {
  #otherAt = Number.NEGATIVE_INFINITY;

  /** A request other than a batch came in, or was answered, at `now` (ms, any monotonic clock). */
  otherRequest(now: number): void {
    this.#otherAt = now;
  }

  /** Items per transaction for a batch stored at `now`. */
  chunkItems(now: number): number {
    return now - this.#otherAt < OTHERS_WINDOW_MS ? CHUNK_ITEMS : Number.POSITIVE_INFINITY;
  }

  /** How long the alarm waits after a round that ended at `now` before the next. */
  pauseAfterRound(now: number): number {
    return now - this.#otherAt < READER_WINDOW_MS ? READER_PAUSE_MS : 0;
  }
}
