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
 * Which of a chunk's items name a handle that belongs to another profile than the item's own
 * (`item_mentions`), from the handles as the chunk's identity resolved them (`handleOf`), with no
 * read: only an item that names more than one subject can, and the few found go in one statement.
 */
export function noteMentions(
  sql: SqlStorage,
  items: readonly StoredItem[],
  handleOf: (handle: Handle) => { handleId: string; profileId: string } | undefined,
): void {
  const mentions: [string, number][] = [];
  for (const item of items) {
    if (item.profileId === null || item.handles.length + (item.namesProfile ? 1 : 0) < 2) continue;
    for (const handle of item.handles) {
      const record = handleOf(handle);
      if (record && record.profileId !== item.profileId) mentions.push([record.handleId, item.seq]);
    }
  }
  if (mentions.length === 0) return;
  sql.exec(
    "INSERT INTO item_mentions (handle_id, seq) SELECT value ->> 0, value ->> 1 FROM json_each(?) WHERE true ON CONFLICT DO NOTHING",
    JSON.stringify(mentions),
  );
}
