/**
 * The space's SQL handle, its rows made from the runtime's arrays (`raw()`) and the column names
 * here. workerd builds each row's object itself at about half as much again (some 0.2 µs a value more,
 * measured in workerd on rows of 11 columns), and a batch of the bench reads about 26,000 values
 * (docs/performance.md, "Rows as objects"). Everything else is the runtime's cursor: statements
 * run when `exec` is called, rows are read as they are asked for, a repeated column name keeps
 * its last value, and `one()` (one row) is the runtime's own.
 */
export function rowsFromArrays(sql: SqlStorage): SqlStorage {
  return {
    exec: <T extends Record<string, SqlStorageValue>>(query: string, ...bindings: unknown[]) =>
      new RowCursor<T>(sql.exec<T>(query, ...bindings)),
    get databaseSize() {
      return sql.databaseSize;
    },
    Cursor: sql.Cursor,
    Statement: sql.Statement,
  };
}

class RowCursor<T extends Record<string, SqlStorageValue>> implements SqlStorageCursor<T> {
  readonly #cursor: SqlStorageCursor<T>;
  #iterator: IterableIterator<SqlStorageValue[]> | null = null;
  #names: string[] | null = null;

  constructor(cursor: SqlStorageCursor<T>) {
    this.#cursor = cursor;
  }

  /** The runtime's rows as arrays; a write's cursor is never asked for them. */
  get #values(): IterableIterator<SqlStorageValue[]> {
    this.#iterator ??= this.#cursor.raw();
    return this.#iterator;
  }

  get columnNames(): string[] {
    return this.#cursor.columnNames;
  }

  get rowsRead(): number {
    return this.#cursor.rowsRead;
  }

  get rowsWritten(): number {
    return this.#cursor.rowsWritten;
  }

  next(): IteratorResult<T, undefined> {
    const step = this.#values.next();
    return step.done ? { done: true, value: undefined } : { done: false, value: this.#row(step.value) };
  }

  [Symbol.iterator](): IterableIterator<T> {
    return this;
  }

  toArray(): T[] {
    const rows: T[] = [];
    for (const values of this.#values) rows.push(this.#row(values));
    return rows;
  }

  one(): T {
    return this.#cursor.one();
  }

  raw<U extends SqlStorageValue[]>(): IterableIterator<U> {
    return this.#values as IterableIterator<U>;
  }

  #row(values: SqlStorageValue[]): T {
    this.#names ??= this.#cursor.columnNames;
    const row: Record<string, SqlStorageValue> = {};
    for (let i = 0; i < this.#names.length; i++) row[this.#names[i] as string] = values[i] ?? null;
    return row as T;
  }
}
