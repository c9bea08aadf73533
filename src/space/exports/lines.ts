import type { ExportCounts } from "../../contract/exports";
import { handlesOfRoot } from "../identity/handle-store";
import { normalizeHandle } from "../identity/handles";
import { identifierObject, readProfile } from "../identity/profile-view";
import { findProfile } from "../identity/profiles";
import { foldPlacements } from "../memory/session-events";
import { foldSessions } from "../memory/sessions";

/**
 * The lines of an export file (NDJSON, docs/api/privacy.md#export-file), read in slices: each
 * slice reads from where the last one stopped and gives the next position, so a subject of any
 * size is written a few hundred lines at a time and never held whole. Sections in order: the
 * header, the profile and the profiles merged into it, handles, events, episodes, memory.
 */
export type ExportCursor =
  | { section: "head" }
  | { section: "events"; session: string; occurredAt: number; seq: number }
  | { section: "episodes"; after: string }
  | { section: "memory"; after: [string, string, string] }
  | { section: "end" };

export const START: ExportCursor = { section: "head" };

export interface Subject {
  exportId: string;
  space: string;
  rootId: string;
  /** The root and every profile merged into it when the export was asked. */
  members: string[];
  createdAt: number;
}

export interface Slice {
  lines: string[];
  bytes: number;
  cursor: ExportCursor;
  counts: Partial<ExportCounts>;
}

const iso = (ms: number) => new Date(ms).toISOString();
const encoder = new TextEncoder();

export function emptyCounts(): ExportCounts {
  return { profiles: 0, handles: 0, events: 0, episodes: 0, facts: 0, open_items: 0, promises: 0, objects: 0 };
}

/** Reads lines from `cursor` until `maxLines` or `maxBytes` (UTF-8, newlines included) is reached, or the end. */
export function readSlice(sql: SqlStorage, subject: Subject, cursor: ExportCursor, maxLines: number, maxBytes: number): Slice {
  const slice: Slice = { lines: [], bytes: 0, cursor, counts: {} };
  const push = (record: string, value: object, counted?: keyof ExportCounts) => {
    const line = `${JSON.stringify({ record, ...value })}\n`;
    slice.lines.push(line);
    slice.bytes += encoder.encode(line).byteLength;
    if (counted) slice.counts[counted] = (slice.counts[counted] ?? 0) + 1;
  };
  const full = () => slice.lines.length >= maxLines || slice.bytes >= maxBytes;
  while (!full() && slice.cursor.section !== "end") {
    const left = maxLines - slice.lines.length;
    switch (slice.cursor.section) {
      case "head":
        head(sql, subject, push);
        slice.cursor = { section: "events", session: "", occurredAt: 0, seq: 0 };
        break;
      case "events":
        slice.cursor = events(sql, subject, slice.cursor, left, push);
        break;
      case "episodes":
        slice.cursor = episodes(sql, subject, slice.cursor.after, left, push);
        break;
      case "memory":
        slice.cursor = memory(sql, subject, slice.cursor.after, left, push);
        break;
    }
  }
  return slice;
}

type Push = (record: string, value: object, counted?: keyof ExportCounts) => void;

/** The header, the profile as `GET /v1/profiles/{id}` answers it with whole values, merged profiles, handles. */
function head(sql: SqlStorage, subject: Subject, push: Push): void {
  push("export", {
    export_id: subject.exportId,
    space: subject.space,
    profile_id: subject.rootId,
    created_at: iso(subject.createdAt),
  });
  push("profile", readProfile(sql, subject.rootId, { visibility: "whole", sources: null }), "profiles");
  const members = new Set(subject.members);
  for (const id of subject.members) {
    const member = findProfile(sql, id);
    if (!member || id === subject.rootId) continue;
    const mergedInto = member.mergedInto;
    push(
      "merged_profile",
      { profile_id: id, subject_kind: member.subjectKind, merged_into: mergedInto, created_at: iso(member.createdAt) },
      "profiles",
    );
  }
  const root = findProfile(sql, subject.rootId);
  for (const handle of handlesOfRoot(sql, subject.rootId)) {
    if (!members.has(handle.profileId)) continue;
    push(
      "handle",
      { profile_id: handle.profileId, ...identifierObject(handle, root?.subjectKind ?? "person", "whole") },
      "handles",
    );
  }
}

interface EventRow {
  session_id: string;
  occurred_at: number;
  seq: number;
  item_id: string;
  source_id: string;
  received_at: number;
  body: string;
  [column: string]: SqlStorageValue;
}

/**
 * The subject's events, session by session (sessions by id, events in memory order): the item
 * as it was received, with only the subject's own handles (an event can name another subject's
 * handle beside the subject's, and that one is not the subject's data).
 */
function events(
  sql: SqlStorage,
  subject: Subject,
  after: Extract<ExportCursor, { section: "events" }>,
  limit: number,
  push: Push,
): ExportCursor {
  // Sessions and placements appended since the last fold are read once folded.
  foldSessions(sql);
  foldPlacements(sql);
  const sessions = sql
    .exec<{ session_id: string }>(
      `SELECT s.session_id FROM json_each(?) m CROSS JOIN sessions s
       WHERE s.profile_id = m.value AND s.session_id >= ? ORDER BY s.session_id`,
      JSON.stringify(subject.members),
      after.session,
    )
    .toArray();
  const own = ownHandles(sql, subject.members);
  let left = limit;
  for (const { session_id: session } of sessions) {
    const from = session === after.session ? after : { occurredAt: Number.MIN_SAFE_INTEGER, seq: -1 };
    const rows = sql
      .exec<EventRow>(
        `SELECT e.session_id, e.occurred_at, e.seq, i.item_id, i.source_id, i.received_at, i.body
         FROM session_events e CROSS JOIN items i ON i.seq = e.seq
         WHERE e.session_id = ? AND (e.occurred_at, e.seq) > (?, ?) ORDER BY e.occurred_at, e.seq LIMIT ?`,
        session,
        from.occurredAt,
        from.seq,
        left,
      )
      .toArray();
    for (const row of rows) pushEvent(row, own, push);
    left -= rows.length;
    const last = rows.at(-1);
    if (left === 0 && last) return { section: "events", session, occurredAt: last.occurred_at, seq: last.seq };
  }
  return { section: "episodes", after: "" };
}

function pushEvent(row: EventRow, own: ReadonlySet<string>, push: Push): void {
  const item = JSON.parse(row.body) as { handles?: { type: string; value: string; scope?: string }[] };
  if (item.handles) item.handles = item.handles.filter((handle) => own.has(handleKey(handle)));
  push(
    "event",
    {
      event_id: row.item_id,
      occurred_at: iso(row.occurred_at),
      received_at: iso(row.received_at),
      source_id: row.source_id,
      session_id: row.session_id,
      item,
    },
    "events",
  );
}

function handleKey(handle: { type: string; value: string; scope?: string }): string {
  const normalized = normalizeHandle(handle);
  return normalized.ok ? `${normalized.handle.type}\n${normalized.handle.scope}\n${normalized.handle.value}` : "";
}

function ownHandles(sql: SqlStorage, members: readonly string[]): Set<string> {
  const rows = sql.exec<{ type: string; scope: string; value: string }>(
    "SELECT h.type, h.scope, h.value FROM json_each(?) m CROSS JOIN handles h WHERE h.profile_id = m.value",
    JSON.stringify(members),
  );
  return new Set([...rows].map((row) => `${row.type}\n${row.scope}\n${row.value}`));
}

/** Every episode of the subject as a context shows one, whole: all its `derived` and highlights. */
function episodes(sql: SqlStorage, subject: Subject, after: string, limit: number, push: Push): ExportCursor {
  const rows = sql
    .exec<{ session_id: string; started_at: number; ended_at: number; body: string }>(
      `SELECT e.session_id, e.started_at, e.ended_at, e.body FROM json_each(?) m CROSS JOIN episodes e
       WHERE e.profile_id = m.value AND e.session_id > ? ORDER BY e.session_id LIMIT ?`,
      JSON.stringify(subject.members),
      after,
      limit,
    )
    .toArray();
  for (const row of rows) {
    const body = JSON.parse(row.body) as { highlights?: unknown[] };
    push(
      "episode",
      {
        episode_id: row.session_id,
        ...body,
        highlights: body.highlights ?? [],
        started_at: iso(row.started_at),
        ended_at: iso(row.ended_at),
      },
      "episodes",
    );
  }
  const last = rows.at(-1);
  if (rows.length < limit || !last) return { section: "memory", after: ["", "", ""] };
  return { section: "episodes", after: last.session_id };
}

const ENTRY_RECORDS = { fact: "facts", object: "objects", promise: "promises" } as const;

/** The root's memory entries: facts (every key, retracted ones too), objects, promises, and open items. */
function memory(sql: SqlStorage, subject: Subject, after: [string, string, string], limit: number, push: Push): ExportCursor {
  const rows = sql
    .exec<{ kind: string; subject: string; key: string; view: string | null; open_item: string | null }>(
      `SELECT kind, subject, key, view, open_item FROM memory_entries
       WHERE profile_id = ? AND (kind, subject, key) > (?, ?, ?) ORDER BY kind, subject, key LIMIT ?`,
      subject.rootId,
      ...after,
      limit,
    )
    .toArray();
  for (const row of rows) {
    const counted = ENTRY_RECORDS[row.kind as keyof typeof ENTRY_RECORDS];
    if (counted && row.view !== null) push(row.kind, JSON.parse(row.view) as object, counted);
    if (row.open_item !== null) push("open_item", JSON.parse(row.open_item) as object, "open_items");
  }
  const last = rows.at(-1);
  if (rows.length < limit || !last) return { section: "end" };
  return { section: "memory", after: [last.kind, last.subject, last.key] };
}
