import type { BatchItem } from "../../contract/batch";
import type { ItemCode } from "../../http/problem";
import { type MediaRecord, mediaRecords } from "./reservations";

/** The `content.media_ref` of an item, if it has one. */
function refOf(item: BatchItem): string | null {
  if (item.type !== "event") return null;
  return item.content?.media_ref ?? null;
}

/**
 * The references a batch's raw items name, read before the items are checked (any shape may
 * arrive): so that the batch reads the files it points to once, not once per item.
 */
export function namedMediaRefs(body: unknown): string[] {
  const items = (body as { items?: unknown } | null)?.items;
  if (!Array.isArray(items)) return [];
  const refs = new Set<string>();
  for (const item of items) {
    const ref = (item as { content?: { media_ref?: unknown } } | null)?.content?.media_ref;
    if (typeof ref === "string") refs.add(ref);
  }
  return [...refs];
}

/**
 * What a batch's events may point to (SPEC `content.media_ref`): a completed upload of this
 * space, with the same `media_sha256`. Built from one read of the files the batch names, read
 * again for each chunk (`forChunk`).
 */
export class MediaCheck {
  static readonly none = new MediaCheck(new Map());
  #records: ReadonlyMap<string, MediaRecord>;

  constructor(records: ReadonlyMap<string, MediaRecord>) {
    this.#records = records;
  }

  /**
   * The check for one chunk, in the chunk's transaction: the files its events point to read again
   * by primary key, since a forget let in between chunks may have erased one. A reference the
   * batch's read did not find is not read again: a reservation's `media_ref` is a new UUID.
   */
  forChunk(sql: SqlStorage, items: readonly BatchItem[]): MediaCheck {
    const refs = new Set(items.flatMap((item) => refOf(item) ?? []).filter((ref) => this.#records.has(ref)));
    return refs.size === 0 ? this : new MediaCheck(mediaRecords(sql, [...refs]));
  }

  /** Why an item's media reference refuses it, or null when it has none or a good one. */
  refusal(item: BatchItem): { code: ItemCode; detail: string } | null {
    const ref = refOf(item);
    if (ref === null || item.type !== "event") return null;
    const found = this.#records.get(ref);
    if (!found || found.status === "erased") return { code: "not_found", detail: "content.media_ref: no_such_media" };
    if (found.status !== "stored") return { code: "invalid_input", detail: "content.media_ref: not_uploaded" };
    if (found.sha256 !== item.content?.media_sha256) {
      return { code: "invalid_input", detail: "content.media_sha256: not_the_uploaded_hash" };
    }
    return null;
  }
}

/**
 * Notes which stored events point to which file, by the profile each was resolved to, so that
 * erasing a subject finds the files its events point to. One statement per chunk, and none for
 * a chunk without media.
 */
export function recordReferences(
  sql: SqlStorage,
  stored: readonly { item: BatchItem; itemId: string; profileId: string | null }[],
): void {
  const rows: [string, string, string][] = [];
  for (const { item, itemId, profileId } of stored) {
    const ref = refOf(item);
    if (ref !== null && profileId !== null) rows.push([ref, itemId, profileId]);
  }
  if (rows.length === 0) return;
  sql.exec(
    "INSERT INTO media_references (media_ref, item_id, profile_id) SELECT r.value ->> 0, r.value ->> 1, r.value ->> 2 FROM json_each(?) r WHERE true ON CONFLICT DO NOTHING",
    JSON.stringify(rows),
  );
}
