import { SlugSchema } from "../../contract/common";
import { FileRefusal } from "./file-refusal";

/** Columns that are not handles (SPEC `POST /v1/ingest/files`). */
const META_COLUMNS = ["idempotency_key", "occurred_at", "subject_kind"] as const;
type MetaColumn = (typeof META_COLUMNS)[number];

const SCOPE_SUFFIX = /^(.+)_scope$/;
const FURTHER_VALUE = /^(.+)_([2-9])$/;

/** Where each part of an identify item is in a record, by column index. */
export interface CsvLayout {
  width: number;
  /** Per handle type, in the order the type first appears: its value columns (in header order) and its scope column. */
  handles: { type: string; values: number[]; scope: number | null }[];
  meta: Partial<Record<MetaColumn, number>>;
}

/**
 * Reads a CSV header (docs/api/imports.md "CSV"): `<type>` and `<type>_2` to `<type>_9` are
 * values of a handle type, `<type>_scope` its namespace, `idempotency_key`, `occurred_at` and
 * `subject_kind` what they say. A header that names anything else, names a column twice, gives a
 * scope to a type with no value column or has no handle column at all refuses the file, naming
 * the column by its number.
 */
export function csvLayout(header: readonly string[]): CsvLayout {
  const layout: CsvLayout = { width: header.length, handles: [], meta: {} };
  const byType = new Map<string, CsvLayout["handles"][number]>();
  const entry = (type: string) => {
    let found = byType.get(type);
    if (!found) {
      found = { type, values: [], scope: null };
      byType.set(type, found);
      layout.handles.push(found);
    }
    return found;
  };
  const seen = new Set<string>();
  for (const [index, raw] of header.entries()) {
    const name = raw.trim();
    const column = `column ${index + 1}`;
    if (seen.has(name)) throw new FileRefusal(`header: ${column} repeats an earlier column`);
    seen.add(name);
    if ((META_COLUMNS as readonly string[]).includes(name)) {
      layout.meta[name as MetaColumn] = index;
      continue;
    }
    const scope = SCOPE_SUFFIX.exec(name);
    const further = FURTHER_VALUE.exec(name);
    const type = scope?.[1] ?? further?.[1] ?? name;
    if (!SlugSchema.safeParse(type).success) {
      throw new FileRefusal(
        `header: ${column} is not a handle type (a-z, digits, _ . -), <type>_scope, <type>_2 to <type>_9, idempotency_key, occurred_at or subject_kind`,
      );
    }
    if (scope) entry(type).scope = index;
    else entry(type).values.push(index);
  }
  for (const handle of layout.handles) {
    if (handle.values.length === 0) {
      throw new FileRefusal(`header: column ${(handle.scope ?? 0) + 1} is the scope of a handle type with no column`);
    }
  }
  if (layout.handles.length === 0) throw new FileRefusal("header: no handle column");
  return layout;
}

export type CsvRow = { ok: true; item: Record<string, unknown> } | { ok: false; detail: string };

/**
 * One record as the `identify` item SPEC makes of it, method `system_import`: its non-empty
 * handle cells (each type's scope from its scope column), and its meta cells when not empty. A
 * record without an `idempotency_key` gets one derived from the file's hash and the record's
 * cells (`derivedKey`), so that the same file imported again stores nothing twice.
 */
export async function identifyItem(layout: CsvLayout, cells: readonly string[], fileSha256: string): Promise<CsvRow> {
  if (cells.length !== layout.width) {
    return { ok: false, detail: `csv: the record has ${cells.length} fields; the header has ${layout.width}` };
  }
  const handles: { type: string; value: string; scope?: string }[] = [];
  for (const { type, values, scope } of layout.handles) {
    const scopeCell = scope === null ? "" : (cells[scope] ?? "");
    for (const column of values) {
      const value = cells[column] ?? "";
      if (value.trim() === "") continue;
      handles.push(scopeCell === "" ? { type, value } : { type, value, scope: scopeCell });
    }
  }
  const meta = (name: MetaColumn) => {
    const column = layout.meta[name];
    const cell = column === undefined ? "" : (cells[column] ?? "");
    return cell === "" ? undefined : cell;
  };
  const item: Record<string, unknown> = {
    type: "identify",
    idempotency_key: meta("idempotency_key") ?? (await derivedKey(fileSha256, cells)),
    handles,
    method: "system_import",
  };
  const subjectKind = meta("subject_kind");
  if (subjectKind !== undefined) item.subject_kind = subjectKind;
  const occurredAt = meta("occurred_at");
  if (occurredAt !== undefined) item.occurred_at = occurredAt;
  return { ok: true, item };
}

/** `csv:` and the SHA-256 (base64url) of the file's hash and the record's cells. */
export async function derivedKey(fileSha256: string, cells: readonly string[]): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${fileSha256}\n${JSON.stringify(cells)}`));
  const base64 = btoa(String.fromCharCode(...new Uint8Array(digest)));
  return `csv:${base64.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "")}`;
}
