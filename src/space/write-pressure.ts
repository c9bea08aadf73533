/** A compile backlog this long, with writes still coming, means the compiler cannot keep pace. */
export const BACKLOG_SESSIONS = 2_000;
/** How long the compiler waits when it yields, before it looks again. */
export const COMPILE_YIELD_MS = 250;
/** However long writes keep coming, the compiler runs a round at least this often. */
export const MAX_YIELD_MS = 1_000;

/**
 * Whether the compiler yields to writes. When batches keep coming while thousands of sessions
 * wait to be compiled, the object is saturated: every round the compiler takes is a round a
 * batch waits, and memory falls behind either way. A compile due after a batch came in is then
 * put off `COMPILE_YIELD_MS` (at most once per batch, never past `MAX_YIELD_MS` since its last
 * round), and catches up once the writes slow down (`compiled.pending` says how far behind a
 * profile is). Below the backlog it runs whenever it is due.
 */
export class WritePressure {
  #writes = 0;
  #seen = 0;
  #compiledAt = Number.NEGATIVE_INFINITY;

  /** A batch was stored. */
  wrote(): void {
    this.#writes++;
  }

  /**
   * Asked when a compile is due at `now`: whether it runs now; `backlogged` is asked only when
   * batches came since the last time. Counted per ask, not over a window of time: it yields at
   * most once per batch, so a steady rate the object has time for never starves the compiler
   * (a window of a second did, in the bench: at a quarter of the saturated rate with the backlog
   * past its threshold, it compiled one round a second and never caught up).
   */
  mayCompile(now: number, backlogged: () => boolean): boolean {
    const wrote = this.#writes !== this.#seen;
    this.#seen = this.#writes;
    if (wrote && now - this.#compiledAt < MAX_YIELD_MS && backlogged()) return false;
    this.#compiledAt = now;
    return true;
  }
}
