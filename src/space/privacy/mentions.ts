import { type Handle, type HandleInput, normalizeHandle } from "../identity/handles";

const keyOf = (handle: Handle) => `${handle.type}\n${handle.scope}\n${handle.value}`;

/**
 * Another subject's item that names one of the erased subject's handles (an event whose handles
 * belonged to two profiles, the evidence of a suggestion): the item stays that subject's, and the
 * erased handles are taken out of it (from `handles`, and `subject` when it is one). Handles are
 * compared normalized, so any spelling the batch used is found. Returns the new body, or null
 * when the item names none of them.
 */
export function withoutHandles(body: string, erased: ReadonlySet<string>): string | null {
  const item = JSON.parse(body) as { handles?: HandleInput[]; subject?: { handle?: HandleInput } };
  const named = (input: HandleInput) => {
    const normalized = normalizeHandle(input);
    return normalized.ok && erased.has(keyOf(normalized.handle));
  };
  let changed = false;
  if (item.handles?.some(named)) {
    item.handles = item.handles.filter((handle) => !named(handle));
    changed = true;
  }
  if (item.subject?.handle && named(item.subject.handle)) {
    delete item.subject;
    changed = true;
  }
  return changed ? JSON.stringify(item) : null;
}

/** The erased handles of a receipt as `withoutHandles` compares them. */
export function erasedHandleKeys(sql: SqlStorage, receiptId: string): Set<string> {
  const rows = sql.exec<{ type: string; scope: string; value: string }>(
    "SELECT type, scope, value FROM erasure_handles WHERE receipt_id = ?",
    receiptId,
  );
  return new Set([...rows].map(keyOf));
}
