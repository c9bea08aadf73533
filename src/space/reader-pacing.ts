/** A request other than a batch within this long means a reader is about (one waiting on its answer sends the next in a few ms)... */
export const READER_WINDOW_MS = 20;
/** ...and then each round of the alarm is followed by this long without rounds. */
export const READER_PAUSE_MS = 6;

/**
 * Reads first, while a job runs (an erasure, the suggestions job, the compiler): each of the
 * alarm's rounds holds the object's thread for a slice and its commit, and a read that comes in
 * meanwhile waits for it. Under `wrangler dev` the edge shares that thread, so a read waited for a
 * round at each of its turns (the edge, the object, the answer): three rounds, where a quiet read
 * waits for none. While readers are about, each round is followed by `READER_PAUSE_MS` in which a
 * read's turns run, so that a read waits for one round at most; a steady stream of reads slows a
 * job by that pause per round and never stops it. Batches keep their own pacing (`BatchPacing`):
 * a stream of batches would otherwise hold every job back.
 */
export class ReaderPacing {
  #seenAt = Number.NEGATIVE_INFINITY;

  /** A request other than a batch came in, or was answered, at `now` (ms, any monotonic clock). */
  seen(now: number): void {
    this.#seenAt = now;
  }

  /** How long the alarm waits after a round that ended at `now` before the next. */
  pauseAfterRound(now: number): number {
    return now - this.#seenAt < READER_WINDOW_MS ? READER_PAUSE_MS : 0;
  }
}
