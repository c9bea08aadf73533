/** Runs `work` so that its writes commit together, or none of them do. */
export type Transaction = <T>(work: () => T) => T;

/**
 * Writes committed by the runtime's implicit transaction, with no savepoint of their own. The
 * runtime commits every write of a turn (what runs between two awaits) in one transaction when
 * the turn ends, and holds the object's answers until that commit. `storage.transactionSync`
 * opens a savepoint inside it, so that a throw undoes the callback's writes, and SQLite copies
 * each page a savepoint changes to its sub-journal first: about 7 % of the object's thread under
 * the bench's saturating ingest (docs/performance.md). So the batch path and the alarm's rounds,
 * each one turn, run without one: if `work` throws, the error is logged (its name and place, as
 * the edge logs one) and the object is reset (`abort`, which ends the turn at once), dropping the
 * turn's uncommitted writes: every answer waiting for that commit fails with it, and a client sends
 * again (a resent batch is safe).
 */
export function implicitTransaction(state: DurableObjectState): Transaction {
  return (work) => {
    try {
      return work();
    } catch (error) {
      const { name, stack } = error instanceof Error ? error : new Error();
      console.error(
        JSON.stringify({ message: "a write failed: the object resets", error: name, at: stack?.split("\n")[1]?.trim() ?? null }),
      );
      state.abort("a write failed: the turn's writes are dropped");
      throw error;
    }
  };
}
