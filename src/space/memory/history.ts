import type { BatchItem } from "../../contract/batch";
import { LEVELS, type Level } from "../../contract/common";
import type { HistoryItem, HistoryOpenInput } from "../../contract/history";
import { Problem } from "../../http/problem";
import { findHandle } from "../identity/handle-store";
import { normalizeHandle } from "../identity/handles";
import { profileIdentity, type Viewer } from "../identity/profile-view";
import { membersOf, rootOf } from "../identity/profiles";
import { COMPILER_PARTS, compileSettings } from "./compiler";
import { correctionsOf } from "./corrections";
import { compileSession, type Derivation, type EpisodeBody } from "./derivation";
import { derivationById, derivationsAbout } from "./derivations";
import { closingChange, type MemoryEntry, objectEntries, type PromiseView } from "./memory-view";
import { latestSessionEvents, sessionEvents } from "./session-events";
import { findSession, foldSessions, type SessionRecord } from "./sessions";

/** The latest events of an item its `timeline` shows (a history item is not paged; the timeline route is). */
export const HISTORY_TIMELINE_LIMIT = 500;
export const DEFAULT_HISTORY_TEXT_LEVEL: Level = "V2";
const CANCELLED = /^(cancelled|canceled|failed|rejected)$/i;

export interface HistoryRead {
  viewer: Viewer;
  /** Whether `timeline` carries message text (see `showsText`). */
  showText: boolean;
  now: number;
}

/** `no_customer` is below the scale: a claim of it shows text only where the space's level is `no_customer` too. */
const rank = (level: Level) => (level === "no_customer" ? -1 : LEVELS.indexOf(level));

/**
 * Whether message text shows (DESIGN 3.7): the caller's verification of the customer, capped by
 * its source's ceiling (a key may not claim more than its source may verify), at the space's
 * `history_text_level` or above.
 */
export function showsText(verification: Level, textLevel: Level, ceiling: Level | null): boolean {
  const claimed = ceiling === null ? rank(verification) : Math.min(rank(verification), rank(ceiling));
  return claimed >= rank(textLevel);
}

type Located = { kind: "episode"; rootId: string; session: SessionRecord } | { kind: "object"; rootId: string; subject: string };

const NOT_FOUND = "no such item";

/**
 * `POST /v1/history/open`: an item of the customer holding `handle`. Another customer's item,
 * one outside `conversation_id`, and one that does not exist are the same `404`.
 */
export function openHistory(sql: SqlStorage, input: Omit<HistoryOpenInput, "verification">, read: HistoryRead): HistoryItem {
  const normalized = normalizeHandle(input.handle);
  if (!normalized.ok) throw new Problem("invalid_input", `handle.value: ${normalized.rule}`);
  const handle = findHandle(sql, normalized.handle);
  const customer = handle ? rootOf(sql, handle.profileId) : null;
  const located = customer ? locate(sql, input.item_id, read.viewer) : null;
  if (!customer || !located || located.rootId !== customer.profileId) throw new Problem("not_found", NOT_FOUND);
  if (input.conversation_id !== undefined && !inConversation(sql, located, input.conversation_id)) {
    throw new Problem("not_found", NOT_FOUND);
  }
  return itemOf(sql, located, read);
}

/** `GET /v1/history/items/{item_id}`. */
export function historyItem(sql: SqlStorage, itemId: string, read: HistoryRead): HistoryItem {
  const located = locate(sql, itemId, read.viewer);
  if (!located) throw new Problem("not_found", NOT_FOUND);
  return itemOf(sql, located, read);
}

/**
 * What an id opens: a session (its episode); an object change, an object's open item or a
 * promise (the object); a fact or a question (the episode of the event it came from). Null when
 * there is none, or when the viewer may not see its profile (as the profile read).
 */
function locate(sql: SqlStorage, id: string, viewer: Viewer): Located | null {
  const located = locateAny(sql, id);
  if (located && viewer.sources !== null && !profileIdentity(sql, located.rootId, viewer)) return null;
  return located;
}

function locateAny(sql: SqlStorage, id: string): Located | null {
  const located = locateAnywhere(sql, id);
  // A profile being erased is gone from `profiles` at once; its sessions and derivations go in slices.
  return located && rootOf(sql, located.rootId) ? located : null;
}

function locateAnywhere(sql: SqlStorage, id: string): Located | null {
  const rootIdOf = (profileId: string) => rootOf(sql, profileId)?.profileId ?? profileId;
  const session = findSession(sql, id);
  if (session) return { kind: "episode", rootId: rootIdOf(session.profileId), session };
  const found = derivationById(sql, id);
  if (!found) return null;
  const { derivation, profileId } = found;
  if (derivation.type === "object" || derivation.type === "promise") {
    return { kind: "object", rootId: rootIdOf(profileId), subject: derivation.subject };
  }
  const row = sql
    .exec<{ session_id: string | null }>("SELECT session_id FROM items WHERE item_id = ?", derivation.itemId)
    .toArray()[0];
  const origin = row?.session_id ? findSession(sql, row.session_id) : null;
  return origin ? { kind: "episode", rootId: rootIdOf(origin.profileId), session: origin } : null;
}

/** Whether the item happened in a conversation (by any of its ids): its session's, or one of its object's changes'. */
function inConversation(sql: SqlStorage, located: Located, conversationId: string): boolean {
  foldSessions(sql); // joined below
  const first =
    sql
      .exec<{ conversation_id: string }>("SELECT conversation_id FROM conversation_aliases WHERE alias = ?", conversationId)
      .toArray()[0]?.conversation_id ?? conversationId;
  if (located.kind === "episode") return located.session.conversationId === first;
  const members = membersOf(sql, located.rootId);
  const itemIds = derivationsAbout(sql, members, "object", located.subject).map((change) => change.itemId);
  return sql
    .exec<{ conversation_id: string | null }>(
      `SELECT s.conversation_id FROM json_each(?) j CROSS JOIN items i ON i.item_id = j.value
       CROSS JOIN sessions s ON s.session_id = i.session_id`,
      JSON.stringify(itemIds),
    )
    .toArray()
    .some((row) => row.conversation_id === first);
}

function itemOf(sql: SqlStorage, located: Located, read: HistoryRead): HistoryItem {
  return located.kind === "episode" ? episodeItem(sql, located, read) : objectItem(sql, located, read);
}

type ObjectDerivation = Extract<Derivation, { type: "object" }>;
type PromiseDerivation = Extract<Derivation, { type: "promise" }>;

/**
 * An episode as the compiler stored it; a session not compiled yet is compiled here, without
 * writing anything. Its promises' statuses are those of memory (their objects' changes decide).
 */
function episodeItem(
  sql: SqlStorage,
  { rootId, session }: Extract<Located, { kind: "episode" }>,
  read: HistoryRead,
): HistoryItem {
  const stored = sql.exec<{ body: string }>("SELECT body FROM episodes WHERE session_id = ?", session.sessionId).toArray()[0];
  let episode: EpisodeBody;
  let fresh: Derivation[] = [];
  if (stored) {
    episode = JSON.parse(stored.body) as EpisodeBody;
  } else {
    const events = sessionEvents(sql, session.sessionId);
    const compiled = compileSession(
      events,
      { open: session.status === "open", handoffAt: session.handoffAt },
      COMPILER_PARTS,
      compileSettings(sql),
    );
    episode = compiled.episode;
    fresh = compiled.derivations;
  }
  const members = membersOf(sql, rootId);
  const subjects = new Set<string>();
  for (const id of episode.promises) {
    const promise = fresh.find((d) => d.id === id) ?? derivationById(sql, id)?.derivation;
    if (promise) subjects.add(promise.subject);
  }
  const promises = new Map<string, PromiseView>();
  for (const subject of subjects) {
    for (const entry of objectOf(sql, members, subject, fresh, read.now).entries) {
      if (entry.kind === "promise") promises.set(entry.view.promise_id, entry.view);
    }
  }
  const rows = latestSessionEvents(sql, session.sessionId, HISTORY_TIMELINE_LIMIT).reverse();
  return {
    id: session.sessionId,
    kind: "episode",
    profile_id: rootId,
    summary: episode.summary,
    requested: episode.requested,
    promises: episode.promises.flatMap((id) => promises.get(id) ?? []),
    outcome: episode.outcome,
    resolution: episode.resolution,
    derived: episode.derived,
    // Stored before highlights were kept: none.
    highlights: (episode.highlights ?? []).map(({ event_id, text }) => ({ event_id, text: read.showText ? text : null })),
    timeline: rows.map((row) => entryOf(row, read.showText)),
    text_shown: read.showText,
    episode: {
      conversation_id: session.kind === "conversation" ? session.conversationId : null,
      channel: session.channel,
      started_at: iso(session.startedAt),
      ended_at: iso(session.closedAt ?? session.lastAt),
      status: session.status,
    },
    object: null,
    as_of: iso(read.now),
  };
}

/**
 * An object's whole history: its status and attributes change by change, the promises made
 * about it, the events that changed it. Its `id` is its first change's (its `open_item_id`
 * while open), whichever of its ids opened it.
 */
function objectItem(sql: SqlStorage, { rootId, subject }: Extract<Located, { kind: "object" }>, read: HistoryRead): HistoryItem {
  const { changes, entries } = objectOf(sql, membersOf(sql, rootId), subject, [], read.now);
  const object = entries.find((entry): entry is MemoryEntry & { kind: "object" } => entry.kind === "object");
  const ordered = [...changes].sort((a, b) => a.occurredAt - b.occurredAt || a.seq - b.seq);
  const first = ordered[0];
  const last = ordered.at(-1);
  if (!object || !first || !last) throw new Problem("not_found", NOT_FOUND);
  const { view, listed: open, openItem } = object;
  const name = `${view.object_type} ${view.object_id}`;
  const promises = entries.flatMap((entry) => (entry.kind === "promise" ? [entry.view] : []));
  const cancelled =
    last.body.operation === "cancel" || CANCELLED.test(view.status ?? "") || /cancel/.test(last.body.canonical_type ?? "");
  const rows = sql
    .exec<EventRow>(
      "SELECT i.item_id, i.seq, i.occurred_at, i.body FROM json_each(?) j CROSS JOIN items i ON i.item_id = j.value",
      JSON.stringify([...new Set(ordered.map((change) => change.itemId))]),
    )
    .toArray()
    .sort((a, b) => a.occurred_at - b.occurred_at || a.seq - b.seq)
    .slice(-HISTORY_TIMELINE_LIMIT);
  const counts = `${changes.length} change${changes.length === 1 ? "" : "s"}, ${promises.length} promise${promises.length === 1 ? "" : "s"}`;
  return {
    id: first.id,
    kind: "object",
    profile_id: rootId,
    summary: `${name}: ${view.status ?? (open ? "open" : "closed")} (${counts})`,
    requested: `${first.body.operation ?? first.body.canonical_type ?? "change"} ${name}`,
    promises,
    outcome: open ? "unknown" : cancelled ? "unresolved" : "resolved",
    // What closed it: a last change that closed it by itself without a status (a `cancel`, an
    // `*.completed` event) says so; else its last status (an earlier one would read as the outcome).
    resolution: open
      ? null
      : ((last.body.status ? null : closingChange(last)) ?? view.status ?? last.body.canonical_type ?? last.body.operation),
    derived: [
      ...ordered.map((change) => ({
        type: "object" as const,
        id: change.id,
        summary: `${name}: ${change.body.operation ?? change.body.canonical_type ?? "changed"}`,
      })),
      ...promises.map((promise) => ({
        type: "promise" as const,
        id: promise.promise_id,
        summary: `promise by ${promise.by}: ${promise.what}`,
      })),
      ...(openItem ? [{ type: "open_item" as const, id: openItem.open_item_id, summary: openItem.summary }] : []),
    ],
    highlights: [],
    timeline: rows.map((row) => entryOf(row, read.showText)),
    text_shown: read.showText,
    episode: null,
    object: {
      object_type: view.object_type,
      object_id: view.object_id,
      status: view.status,
      attributes: view.attributes,
      open,
      updated_at: view.updated_at,
      changes: ordered.map((change) => ({
        change_id: change.id,
        event_id: change.itemId,
        occurred_at: iso(change.occurredAt),
        operation: change.body.operation,
        canonical_type: change.body.canonical_type,
        status: change.body.status,
        attributes: change.body.attributes,
      })),
    },
    as_of: iso(read.now),
  };
}

/**
 * An object's memory entries as the compiler makes them (`objectEntries`, with feedback), from the
 * members' derivations about it and `fresh` ones of a session not compiled yet.
 */
function objectOf(sql: SqlStorage, members: readonly string[], subject: string, fresh: readonly Derivation[], now: number) {
  const changes = unique([
    ...derivationsAbout(sql, members, "object", subject),
    ...fresh.filter((d): d is ObjectDerivation => d.type === "object" && d.subject === subject),
  ]);
  const promises = unique([
    ...derivationsAbout(sql, members, "promise", subject),
    ...fresh.filter((d): d is PromiseDerivation => d.type === "promise" && d.subject === subject),
  ]);
  const corrections = correctionsOf(
    sql,
    changes.map((change) => change.id),
  );
  return { changes, entries: objectEntries(subject, changes, promises, now, corrections) };
}

function unique<T extends { id: string }>(derivations: readonly T[]): T[] {
  return [...new Map(derivations.map((d) => [d.id, d])).values()];
}

interface EventRow {
  item_id: string;
  seq: number;
  occurred_at: number;
  body: string;
  [column: string]: SqlStorageValue;
}

/** A timeline entry (DESIGN 3.7); message text only when the level allows it. */
function entryOf(row: EventRow, showText: boolean): HistoryItem["timeline"][number] {
  const item = JSON.parse(row.body) as Extract<BatchItem, { type: "event" }>;
  return {
    event_id: row.item_id,
    occurred_at: iso(row.occurred_at),
    kind: item.kind,
    channel: item.channel ?? null,
    speaker_role: item.speaker?.role ?? null,
    text: showText ? (item.content?.text ?? item.content?.transcript ?? null) : null,
  };
}

const iso = (ms: number) => new Date(ms).toISOString();
