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

/** An item as intake stored it: its `seq`, its profile, its normalized handles (the subject's first). */
export interface StoredItem {
  seq: number;
  profileId: string | null;
  handles: readonly Handle[];
  /** Whether the item names its profile by id (an event's `subject.profile_id`). */
  namesProfile: boolean;
}

/**
 * Notes, after a chunk's identity is resolved, which of its items name a handle that belongs to
 * another profile than the item's own (`item_mentions`): only an item that names more than one
 * subject can, so one statement for those few and none for the rest.
 */
export function noteMentions(sql: SqlStorage, items: readonly StoredItem[]): void {
  const candidates = items.filter((item) => item.profileId !== null && item.handles.length + (item.namesProfile ? 1 : 0) > 1);
  if (candidates.length === 0) return;
  sql.exec(
    `INSERT INTO item_mentions (handle_id, seq)
     SELECT h.handle_id, c.value ->> 0 FROM json_each(?) c CROSS JOIN json_each(c.value -> 2) x
     CROSS JOIN handles h ON h.type = x.value ->> 0 AND h.scope = x.value ->> 1 AND h.value = x.value ->> 2
     WHERE h.profile_id <> c.value ->> 1
     ON CONFLICT DO NOTHING`,
    JSON.stringify(
      candidates.map((item) => [
        item.seq,
        item.profileId,
        item.handles.map((handle) => [handle.type, handle.scope, handle.value]),
      ]),
    ),
  );
}
