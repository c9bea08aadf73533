/** A compile backlog this long, with writes still coming, means the compiler cannot keep pace. */
export const BACKLOG_SESSIONS = 2_000;
/** How long the compiler waits when it yields, before it looks again. */
export const COMPILE_YIELD_MS = 250;
/** However long writes keep coming, or a job runs, the compiler runs a round at least this often. */
export const MAX_YIELD_MS = 1_000;
/** Writes saturate the object when storing batches took at least this share of the last `BUSY_WINDOW_MS`. */
export const SATURATED_SHARE = 0.5;
export const BUSY_WINDOW_MS = 1_000;

/** What the pacing asks of the space when a compile is due; the callbacks are asked only when it matters. */
export interface CompileLoad {
  /** At least `BACKLOG_SESSIONS` sessions wait to be compiled. */
  backlogged: () => boolean;
  /** Batches kept the object busy most of the last second (`writesSaturate`). */
  saturated: boolean;
  /** A reader waits for a profile's memory (`hurryCompile`). */
  readerWaits: () => boolean;
  /** A slice of the suggestions job is due in the same round. */
  jobRunning: boolean;
}

/**
 * When the compiler gives way, so that a compile round (the costliest a space has: its writes
 * take longer to commit than its work) does not hold up what cannot wait as long:
 * - **Writes that saturate the object.** When batches keep the object busy (at least
 *   `SATURATED_SHARE` of the last second went to storing them), or keep coming while thousands of
 *   sessions wait, every round the compiler takes is a round a batch waits: under saturation the
 *   compile took more of the object than the batches did (docs/performance.md). A compile due
 *   after a batch came in is then put off `COMPILE_YIELD_MS`, at most once per batch (a window of
 *   a second starved it in the bench: at a quarter of the saturated rate it compiled one round a
 *   second and never caught up). Below both it runs whenever due, and it catches up the backlog
 *   once the writes stop.
 * - **A run of the suggestions job.** The job's slices are a few milliseconds each; sharing every
 *   round with a compile slice made them ten times as far apart, and a run over 100,000 profiles
 *   took a minute behind the compile of the same profiles' first events. While a run is under way
 *   the compiler takes a round once per `MAX_YIELD_MS`.
 * Either way it runs at once when a context read waits for a profile's memory (its sessions are
 * at the front of the queue, so the round is theirs), at least once per `MAX_YIELD_MS`, and
 * catches up once the load is gone (`compiled.pending` says how far behind a profile is).
 */
export class CompilePacing {
  #writes = 0;
  #seen = 0;
  #compiledAt = Number.NEGATIVE_INFINITY;
  /** When the batches of the last `BUSY_WINDOW_MS` started and ended (ms, `performance.now()`). */
  #busy: { started: number; ended: number }[] = [];

  /** A batch was stored, from `started` to `ended` (ms, any monotonic clock). */
  wrote(started: number, ended: number): void {
    this.#writes++;
    this.#busy.push({ started, ended });
    this.#busy = this.#busy.filter((batch) => batch.ended > ended - BUSY_WINDOW_MS);
  }

  /**
   * Whether storing batches took at least `SATURATED_SHARE` of the `BUSY_WINDOW_MS` before `at`
   * (the clock of `wrote`). Where the clock stands still while the object works (production
   * Workers), batches take no time and this is never true: the compiler runs as before.
   */
  writesSaturate(at: number): boolean {
    const from = at - BUSY_WINDOW_MS;
    let busy = 0;
    for (const { started, ended } of this.#busy) busy += Math.max(0, Math.min(ended, at) - Math.max(started, from));
    return busy >= SATURATED_SHARE * BUSY_WINDOW_MS;
  }

  /** Asked when a compile is due at `now`: whether it runs now. */
  mayCompile(now: number, load: CompileLoad): boolean {
    const wrote = this.#writes !== this.#seen;
    this.#seen = this.#writes;
    if (now - this.#compiledAt < MAX_YIELD_MS) {
      const busy = (wrote && (load.saturated || load.backlogged())) || load.jobRunning;
      if (busy && !load.readerWaits()) return false;
    }
    this.#compiledAt = now;
    return true;
  }
}
