import { Problem } from "./problem";

/** Opaque paging cursors: the id after which the next page starts. */
export function encodeCursor(afterId: string): string {
  return btoa(JSON.stringify({ after: afterId }))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replaceAll("=", "");
}

export function decodeCursor(cursor: string | undefined): string | null {
  if (cursor === undefined) return null;
  try {
    const parsed: unknown = JSON.parse(atob(cursor.replaceAll("-", "+").replaceAll("_", "/")));
    if (typeof parsed === "object" && parsed !== null && typeof (parsed as { after?: unknown }).after === "string") {
      return (parsed as { after: string }).after;
    }
  } catch {
    // fall through: a cursor we did not write is invalid input
  }
  throw new Problem("invalid_input", "query.cursor: not_issued_by_this_service");
}

/** A page from rows fetched with `limit + 1`: the extra row only says there is more. */
export function pageFrom<T>(rows: T[], limit: number, idOf: (row: T) => string): { data: T[]; next_cursor: string | null } {
  const data = rows.slice(0, limit);
  const last = data.at(-1);
  return { data, next_cursor: rows.length > limit && last ? encodeCursor(idOf(last)) : null };
}
