import { and, asc, gt, type SQL } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { pageFrom } from "../http/cursor";
import type { ControlDb } from "./db";

/**
 * One page of a control list, mapped for the answer: the rows of `table` within `scope`,
 * ordered by their id (a UUIDv7, so creation order), starting after the cursor's id.
 */
export function listPage<Row, View>(
  db: ControlDb,
  list: { table: SQLiteTable; id: SQLiteColumn; idOf: (row: Row) => string; view: (row: Row) => View },
  scope: SQL,
  after: string | null,
  limit: number,
): { data: View[]; next_cursor: string | null } {
  const rows = db
    .select()
    .from(list.table)
    .where(and(scope, after ? gt(list.id, after) : undefined))
    .orderBy(asc(list.id))
    .limit(limit + 1)
    .all() as Row[];
  const page = pageFrom(rows, limit, list.idOf);
  return { data: page.data.map(list.view), next_cursor: page.next_cursor };
}
