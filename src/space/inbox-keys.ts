/** The keys an inbox held at one of its generations (since one fold), as far as this object knows. */
interface Known {
  generation: number;
  keys: Set<string>;
}

/**
 * Which keys an inbox (a table batches append to with no index, emptied by a fold) holds rows
 * for, remembered in memory per database, so that a read of any other key skips scanning the
 * inbox: a context read of a profile whose handles no batch saw since the last fold does not scan
 * the sightings. The session inbox is held whole in memory instead (`memory/held-sessions.ts`),
 * stamped with the generation kept here. (The compile inbox is not kept here: each compile slice
 * folds it, so it is small, and a fold's write of its generation would come with every slice.)
 *
 * Appends add their keys; a fold, which empties the inbox, starts an empty set under a new random
 * generation, which it writes to `inbox_folds` (owned here). A read checks the generation in
 * SQLite first, so a fold rolled back with its transaction is rolled back here too: the read then
 * finds the generation before it, and the keys of both (a key too many costs a scan, never a row
 * missed). Any other generation (a new object after a restart, or two folds rolled back) loads
 * the keys from the table.
 */
export class InboxKeys {
  readonly #known = new WeakMap<SqlStorage, { now: Known; beforeFold?: Known }>();

  /** `inbox` and `column` are trusted identifiers, never input. */
  constructor(
    readonly inbox: string,
    readonly column: string,
  ) {}

  /** After appending rows with these keys. */
  appended(sql: SqlStorage, keys: Iterable<string>): void {
    const known = this.#known.get(sql)?.now.keys;
    if (known) for (const key of keys) known.add(key);
  }

  /** After emptying the inbox. */
  folded(sql: SqlStorage): void {
    const generation = Math.floor(Math.random() * Number.MAX_SAFE_INTEGER);
    sql.exec(
      `INSERT INTO inbox_folds (inbox, generation) VALUES (?, ?)
       ON CONFLICT (inbox) DO UPDATE SET generation = excluded.generation`,
      this.inbox,
      generation,
    );
    const known = this.#known.get(sql);
    if (known) this.#known.set(sql, { now: { generation, keys: new Set() }, beforeFold: known.now });
  }

  /** False when the inbox holds no row for any of `keys`: a reader can skip it. */
  mayHold(sql: SqlStorage, keys: readonly string[]): boolean {
    if (keys.length === 0) return false;
    const held = this.#keysAt(sql, this.generation(sql));
    return keys.some((key) => held.has(key));
  }

  /** The inbox's fold generation in SQLite (0 before its first fold). */
  generation(sql: SqlStorage): number {
    const row = sql.exec<{ generation: number }>("SELECT generation FROM inbox_folds WHERE inbox = ?", this.inbox).toArray()[0];
    return row?.generation ?? 0;
  }

  #keysAt(sql: SqlStorage, generation: number): Set<string> {
    const known = this.#known.get(sql);
    if (known?.now.generation === generation) return known.now.keys;
    let keys: Set<string>;
    if (known?.beforeFold?.generation === generation) keys = new Set([...known.beforeFold.keys, ...known.now.keys]);
    else {
      const rows = sql.exec<{ key: string }>(`SELECT DISTINCT ${this.column} AS key FROM ${this.inbox}`);
      keys = new Set([...rows].map((row) => row.key));
    }
    this.#known.set(sql, { now: { generation, keys } });
    return keys;
  }
}
