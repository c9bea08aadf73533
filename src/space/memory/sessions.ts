import type { SpaceConfigValues } from "../../contract/config";
import { uuidv7 } from "../../ids";
import { InboxKeys } from "../inbox-keys";
import { deleteTimers, setTimer, setTimerOnce, setTimers, type Timer } from "../timers";
import { HeldSessions, type InboxColumn } from "./held-sessions";

/** Inactivity windows by channel (DESIGN 3.6), in seconds; a task's is `task`. */
export const DEFAULT_SESSION_WINDOWS_S: Record<string, number> = {
  whatsapp: 20 * 60,
  app: 30 * 60,
  voice: 15 * 60,
  email: 72 * 3600,
  ticket: 7 * 24 * 3600,
  crm: 24 * 3600,
  erp: 24 * 3600,
  task: 10 * 60,
};
/** An event on no channel waits like an app conversation. */
const FALLBACK_WINDOW = "app";

/** System events that close their session at once. */
const ENDINGS = new Set(["conversation.ended", "task.ended"]);

export interface SessionRecord {
  sessionId: string;
  conversationKey: string;
  kind: "conversation" | "task";
  channel: string | null;
  conversationId: string | null;
  profileId: string;
  startedAt: number;
  lastAt: number;
  status: "open" | "closed";
  closedAt: number | null;
  closedBy: "inactivity" | "ended" | null;
  handoffAt: number | null;
}

interface SessionRow {
  session_id: string;
  conversation_key: string;
  kind: string;
  channel: string | null;
  conversation_id: string | null;
  profile_id: string;
  started_at: number;
  last_at: number;
  status: string;
  closed_at: number | null;
  closed_by: string | null;
  handoff_at: number | null;
  [column: string]: SqlStorageValue;
}

const record = (row: SessionRow): SessionRecord => ({
  sessionId: row.session_id,
  conversationKey: row.conversation_key,
  kind: row.kind as SessionRecord["kind"],
  channel: row.channel,
  conversationId: row.conversation_id,
  profileId: row.profile_id,
  startedAt: row.started_at,
  lastAt: row.last_at,
  status: row.status as SessionRecord["status"],
  closedAt: row.closed_at,
  closedBy: row.closed_by as SessionRecord["closedBy"],
  handoffAt: row.handoff_at,
});

/** What an event tells sessions: where it belongs and when it happened. */
export interface SessionEvent {
  profileId: string;
  occurredAt: number;
  channel: string | null;
  conversationId: string | null;
  conversationAliases: readonly string[];
  taskId: string | null;
  canonicalType: string | null;
}

/**
 * Places the events of one batch in sessions (DESIGN 3.6), inside the batch's transaction. An
 * event joins the session of its conversation whose window holds its `occurred_at` (a session
 * ended by `conversation.ended` holds nothing after its end); otherwise it starts one. A session
 * whose window has already passed is closed as it is created, and one closed by inactivity opens
 * again when an event moves its end past now. The sessions a batch touched are written once, at
 * `finish`, with their close timers.
 */
export class SessionPlacer {
  #touched = new Map<string, SessionRecord>();
  #created = new Set<string>();
  /** Stored sessions closed by inactivity that an event of the batch opened again. */
  #reopened = new Set<string>();
  /** Stored sessions as they were read, and the records the batch works on. */
  #stored = new Map<string, SessionRecord>();
  #read = new Map<string, SessionRecord>();
  /** The stored sessions the batch could join (`prefetchSessions`), by conversation key. */
  #storedByKey = new Map<string, SessionRecord[]>();
  /** The session each conversation key last joined in this batch (events come in `occurred_at` order). */
  #recent = new Map<string, SessionRecord>();
  #canonical = new Map<string, string>();
  readonly #windows: Record<string, number>;

  constructor(
    private readonly sql: SqlStorage,
    config: SpaceConfigValues,
    private readonly now: number,
  ) {
    this.#windows = { ...DEFAULT_SESSION_WINDOWS_S, ...config.session_windows };
  }

  /** Reads, in one statement, which of the batch's conversation ids are aliases of another (before identity). */
  prefetchAliases(events: readonly Pick<SessionEvent, "conversationId" | "conversationAliases">[]): void {
    const ids = new Set<string>();
    for (const event of events) {
      if (event.conversationId !== null) ids.add(event.conversationId);
      for (const alias of event.conversationAliases) ids.add(alias);
    }
    if (ids.size === 0) return;
    const rows = this.sql.exec<{ alias: string; conversation_id: string }>(
      "SELECT a.alias, a.conversation_id FROM json_each(?) j CROSS JOIN conversation_aliases a WHERE a.alias = j.value",
      JSON.stringify([...ids]),
    );
    for (const row of rows) this.#canonical.set(row.alias, row.conversation_id);
  }

  /**
   * Finds every stored session the batch's events could join: per conversation key, the last one
   * started by its earliest event and every one started after it. `place` then needs no further
   * reads (the rule of `#find`). A key held in memory (`HeldSessions`) is read from there; the
   * others in one statement, and held from then on.
   */
  prefetchSessions(events: readonly SessionEvent[]): void {
    const earliest = new Map<string, number>();
    for (const event of events) {
      const { key } = this.#keyOf(event);
      earliest.set(key, Math.min(earliest.get(key) ?? event.occurredAt, event.occurredAt));
    }
    if (earliest.size === 0) return;
    const held = heldSessions(this.sql);
    const unread = new Map<string, number>();
    for (const [key, from] of earliest) {
      const sessions = held.covering(key, from);
      if (sessions) this.#candidates(key, sessions);
      else unread.set(key, from);
    }
    if (unread.size === 0) return;
    // Every session of these keys in the inbox is a candidate (a few), its state there the latest.
    const pending = pendingSessions(this.sql, "conversationKey", [...unread.keys()]);
    const folded = this.sql.exec<SessionRow>(
      `SELECT s.* FROM json_each(?) j CROSS JOIN sessions s
       WHERE s.conversation_key = j.value ->> 0
         AND s.started_at >= coalesce(
           (SELECT max(x.started_at) FROM sessions x WHERE x.conversation_key = j.value ->> 0 AND x.started_at <= j.value ->> 1),
           j.value ->> 1)`,
      JSON.stringify([...unread]),
    );
    const read = new Map<string, SessionRecord[]>([...unread.keys()].map((key) => [key, []]));
    for (const session of overlay(folded, pending)) read.get(session.conversationKey)?.push(session);
    for (const [key, from] of unread) {
      const sessions = read.get(key) ?? [];
      held.hold(key, from, sessions);
      this.#candidates(key, sessions);
    }
  }

  /**
   * Sessions of `key` the batch may join. `#recent` starts empty: a key's latest open session may
   * start after an event that a session before it also holds, and `#find`'s rule (the one started
   * last before it) decides.
   */
  #candidates(key: string, sessions: readonly SessionRecord[]): void {
    const list = this.#storedByKey.get(key) ?? [];
    for (const session of sessions) list.push(this.#loaded(session));
    this.#storedByKey.set(key, list);
  }

  place(event: SessionEvent): SessionRecord {
    const { key, kind, conversationId } = this.#keyOf(event);
    const window = this.#windowOf(kind, event.channel);
    const at = event.occurredAt;
    const recent = this.#recent.get(key);
    let session = recent && holds(recent, at, window) ? recent : this.#find(key, at, window);
    if (!session) {
      session = {
        sessionId: uuidv7(this.now),
        conversationKey: key,
        kind,
        channel: event.channel,
        conversationId,
        profileId: event.profileId,
        startedAt: at,
        lastAt: at,
        status: "open",
        closedAt: null,
        closedBy: null,
        handoffAt: null,
      };
      this.#created.add(session.sessionId);
    }
    session.startedAt = Math.min(session.startedAt, at);
    session.lastAt = Math.max(session.lastAt, at);
    if (event.canonicalType !== null && ENDINGS.has(event.canonicalType) && session.closedBy !== "ended") {
      session.status = "closed";
      session.closedAt = at;
      session.closedBy = "ended";
    }
    if (session.status === "open" && session.lastAt + window * 1000 <= this.now) {
      session.status = "closed";
      session.closedAt = session.lastAt + window * 1000;
      session.closedBy = "inactivity";
    } else if (session.closedBy === "inactivity" && session.lastAt + window * 1000 > this.now) {
      // A backfill that started it closed, or an event delayed past its close, followed by one
      // within the window of now: the conversation goes on, so its messages are live again.
      session.status = "open";
      session.closedAt = null;
      session.closedBy = null;
      if (!this.#created.has(session.sessionId)) this.#reopened.add(session.sessionId);
    }
    this.#touched.set(session.sessionId, session);
    this.#recent.set(key, session);
    return session;
  }

  /**
   * An item that ends a conversation or task, or hands it over: it applies to the sessions of
   * that conversation (one per profile in it) whose window holds its time, and starts none.
   */
  mark(ref: { conversationId: string | null; taskId: string | null; at: number; effect: "ended" | "handoff" }): SessionRecord[] {
    const id =
      ref.taskId ?? (ref.conversationId === null ? null : (this.#canonical.get(ref.conversationId) ?? ref.conversationId));
    if (id === null) return [];
    const kind: SessionRecord["kind"] = ref.taskId !== null ? "task" : "conversation";
    foldSessions(this.sql);
    const stored = this.sql
      .exec<SessionRow>(
        `SELECT * FROM sessions WHERE ${IN_CONVERSATION} AND kind = ?4 AND started_at <= ?5`,
        ...conversationRange(kind, id),
        id,
        kind,
        ref.at,
      )
      .toArray()
      .map((row) => this.#loaded(record(row)));
    const batch = [...this.#touched.values()].filter(
      (session) =>
        session.conversationId === id && session.kind === kind && !stored.some((s) => s.sessionId === session.sessionId),
    );
    const marked = [...stored, ...batch].filter((session) =>
      holds(session, ref.at, this.#windowOf(session.kind, session.channel)),
    );
    for (const session of marked) {
      if (ref.effect === "handoff") {
        session.handoffAt = Math.min(session.handoffAt ?? ref.at, ref.at);
      } else if (session.closedBy !== "ended") {
        session.status = "closed";
        session.closedAt = Math.max(ref.at, session.lastAt);
        session.closedBy = "ended";
      }
      this.#touched.set(session.sessionId, session);
    }
    return marked;
  }

  /**
   * Appends the sessions the batch changed to the inbox, in one statement. A close timer is set
   * when a session opens (or opens again) and never moved: when it fires, it closes the session
   * only if no later event moved its end (`closeSessions`), so an event costs no timer write.
   * Answers the sessions touched, and those opened again (their earlier events are live again).
   */
  finish(): { touched: SessionRecord[]; reopened: SessionRecord[] } {
    const touched = [...this.#touched.values()];
    const changed = touched.filter((session) => !sameState(this.#stored.get(session.sessionId), session));
    appendSessions(this.sql, changed, this.now);
    const reopened = touched.filter((session) => this.#reopened.has(session.sessionId) && session.status === "open");
    setTimers(
      this.sql,
      touched
        .filter(
          (session) =>
            (this.#created.has(session.sessionId) || this.#reopened.has(session.sessionId)) && session.status === "open",
        )
        .map((session) => {
          const windowMs = this.#windowOf(session.kind, session.channel) * 1000;
          return { kind: "session.close", key: session.sessionId, dueAt: session.lastAt + windowMs, payload: { windowMs } };
        }),
    );
    deleteTimers(
      this.sql,
      "session.close",
      touched
        .filter((session) => !this.#created.has(session.sessionId) && session.status === "closed")
        .map((session) => session.sessionId),
    );
    return { touched, reopened };
  }

  /** A stored session as this batch sees it: found once, then the same record however it is found again. */
  #loaded(found: SessionRecord): SessionRecord {
    const known = this.#read.get(found.sessionId);
    if (known) return known;
    this.#read.set(found.sessionId, found);
    this.#stored.set(found.sessionId, { ...found });
    return found;
  }

  #windowOf(kind: SessionRecord["kind"], channel: string | null): number {
    return (
      (kind === "task" ? this.#windows.task : this.#windows[channel ?? FALLBACK_WINDOW]) ?? DEFAULT_SESSION_WINDOWS_S.app ?? 1800
    );
  }

  /**
   * A session's conversation: a task, a conversation (by its first id seen), or a channel of a
   * profile for events with neither; each of a profile, as callers reuse ids across customers.
   */
  #keyOf(event: Omit<SessionEvent, "occurredAt" | "canonicalType">): {
    key: string;
    kind: SessionRecord["kind"];
    conversationId: string | null;
  } {
    if (event.taskId !== null)
      return { key: conversationKey("task", event.taskId, event.profileId), kind: "task", conversationId: event.taskId };
    if (event.conversationId === null) {
      return { key: `p:${event.profileId}:${event.channel ?? ""}`, kind: "conversation", conversationId: null };
    }
    const conversationId = this.#canonicalOf(event.conversationId, event.conversationAliases);
    return { key: conversationKey("conversation", conversationId, event.profileId), kind: "conversation", conversationId };
  }

  /** The first id seen of a conversation: its aliases, and it, point there. */
  #canonicalOf(conversationId: string, aliases: readonly string[]): string {
    const canonical = this.#canonical.get(conversationId) ?? aliases.map((alias) => this.#canonical.get(alias)).find(Boolean);
    if (aliases.length === 0) return canonical ?? conversationId;
    const ids = [conversationId, ...aliases];
    const target = canonical ?? this.#seenFirst(ids) ?? conversationId;
    this.sql.exec(
      "INSERT OR IGNORE INTO conversation_aliases (alias, conversation_id) SELECT value, ? FROM json_each(?)",
      target,
      JSON.stringify(ids),
    );
    for (const id of ids) if (!this.#canonical.has(id)) this.#canonical.set(id, target);
    return target;
  }

  /**
   * Of ids no alias names yet, the one with the earliest stored session: an id seen alone before
   * (no alias row is written for it) was seen first. Only events with aliases ask, when the batch's
   * keys are made, before any of its events is placed: within one batch, the id named with the
   * aliases is the conversation's.
   */
  #seenFirst(ids: readonly string[]): string | undefined {
    return this.sql
      .exec<{ conversation_id: string }>(
        `SELECT conversation_id, started_at FROM sessions WHERE kind = 'conversation' AND conversation_id IN (SELECT value FROM json_each(?1))
         UNION ALL SELECT conversation_id, started_at FROM session_inbox
         WHERE kind = 'conversation' AND conversation_id IN (SELECT value FROM json_each(?1))
         ORDER BY started_at LIMIT 1`,
        JSON.stringify(ids),
      )
      .toArray()[0]?.conversation_id;
  }

  /** The stored session of `key` whose window holds `at`: the one started last before it, else the next one. */
  #find(key: string, at: number, window: number): SessionRecord | null {
    let earlier: SessionRecord | null = null;
    let later: SessionRecord | null = null;
    for (const session of this.#storedByKey.get(key) ?? []) {
      if (session.startedAt <= at) {
        if (!earlier || session.startedAt > earlier.startedAt) earlier = session;
      } else if (!later || session.startedAt < later.startedAt) {
        later = session;
      }
    }
    if (earlier && holds(earlier, at, window)) return earlier;
    return later && holds(later, at, window) ? later : null;
  }
}

/** Whether a session's window holds an event at `at` (a session that ended holds nothing after its end). */
function holds(session: SessionRecord, at: number, window: number): boolean {
  if (at < session.startedAt) return session.startedAt - at <= window * 1000;
  if (session.closedBy === "ended") return at <= (session.closedAt ?? session.lastAt);
  return at <= session.lastAt + window * 1000;
}

/** Whether a session is as it was read (an event inside its times moves nothing). */
const sameState = (stored: SessionRecord | undefined, session: SessionRecord) =>
  stored !== undefined &&
  onlyTimesMoved(stored, session) &&
  stored.startedAt === session.startedAt &&
  stored.lastAt === session.lastAt;

/** Whether a stored session changed only in its times (an event joined it). */
const onlyTimesMoved = (stored: SessionRecord | undefined, session: SessionRecord) =>
  stored !== undefined &&
  stored.status === session.status &&
  stored.closedAt === session.closedAt &&
  stored.closedBy === session.closedBy &&
  stored.handoffAt === session.handoffAt;

function partition<T>(list: readonly T[], test: (value: T) => boolean): [T[], T[]] {
  const yes: T[] = [];
  const no: T[] = [];
  for (const value of list) (test(value) ? yes : no).push(value);
  return [yes, no];
}

const SESSION_COLUMNS =
  "session_id, conversation_key, kind, channel, conversation_id, profile_id, started_at, last_at, status, closed_at, closed_by, handoff_at";
const SESSION_COLUMN_VALUES = SESSION_COLUMNS.split(", ")
  .map((_, index) => `s.value ->> ${index}`)
  .join(", ");

const columns = (session: SessionRecord) => [
  session.sessionId,
  session.conversationKey,
  session.kind,
  session.channel,
  session.conversationId,
  session.profileId,
  session.startedAt,
  session.lastAt,
  session.status,
  session.closedAt,
  session.closedBy,
  session.handoffAt,
];

/**
 * Folds the session inbox into `sessions`, in a few statements: the latest state of each session
 * there is written once, however many batches changed it since the last fold. A reader sees what
 * batches answered either through the inbox (`sessionsById`, `openSessionsOf`, a batch's
 * prefetch) or by folding first (the timeline, history, an ending item). A session that only went
 * on (its times moved) updates those columns alone, so the indexes on status are left as they are.
 */
export function foldSessions(sql: SqlStorage): void {
  const held = heldSessions(sql);
  const latest = held.inboxWhere(() => readInbox(sql), "sessionId");
  if (latest.size === 0) return;
  const stored = new Map(
    sql
      .exec<SessionRow>(
        "SELECT s.* FROM json_each(?) j CROSS JOIN sessions s WHERE s.session_id = j.value",
        JSON.stringify([...latest.keys()]),
      )
      .toArray()
      .map((row) => [row.session_id, record(row)]),
  );
  const [known, created] = partition([...latest.values()], (session) => stored.has(session.sessionId));
  const updated = known.filter((session) => !sameState(stored.get(session.sessionId), session));
  if (created.length > 0) {
    sql.exec(
      `INSERT INTO sessions (${SESSION_COLUMNS}) SELECT ${SESSION_COLUMN_VALUES} FROM json_each(?) s`,
      JSON.stringify(created.map(columns)),
    );
  }
  const [timesOnly, changed] = partition(updated, (session) => onlyTimesMoved(stored.get(session.sessionId), session));
  // SQLite rewrites the entries of every index holding a column the SET names, moved or not:
  // most sessions only move their end.
  const [endOnly, startToo] = partition(timesOnly, (session) => stored.get(session.sessionId)?.startedAt === session.startedAt);
  if (endOnly.length > 0) {
    sql.exec(
      "UPDATE sessions SET last_at = s.value ->> 1 FROM json_each(?) s WHERE sessions.session_id = s.value ->> 0",
      JSON.stringify(endOnly.map((session) => [session.sessionId, session.lastAt])),
    );
  }
  if (startToo.length > 0) {
    sql.exec(
      `UPDATE sessions SET started_at = s.value ->> 1, last_at = s.value ->> 2
       FROM json_each(?) s WHERE sessions.session_id = s.value ->> 0`,
      JSON.stringify(startToo.map((session) => [session.sessionId, session.startedAt, session.lastAt])),
    );
  }
  if (changed.length > 0) {
    sql.exec(
      `UPDATE sessions SET started_at = s.value ->> 6, last_at = s.value ->> 7, status = s.value ->> 8, closed_at = s.value ->> 9,
         closed_by = s.value ->> 10, handoff_at = s.value ->> 11
       FROM json_each(?) s WHERE sessions.session_id = s.value ->> 0`,
      JSON.stringify(changed.map(columns)),
    );
  }
  sql.exec("DELETE FROM session_inbox");
  inboxFolds.folded(sql);
  held.folded(inboxStamp(sql));
}

/**
 * Close timers fired: a session closes at the end of its window, unless an event moved that end
 * past its timer (then the timer is set again for the new end). `windowMs` is the window the
 * timer was set with; a timer without one closes at its due time. Answers the sessions closed.
 */
export function closeSessions(
  sql: SqlStorage,
  timers: readonly { sessionId: string; dueAt: number; windowMs: number | null }[],
  now: number,
): SessionRecord[] {
  const sessions = sessionsById(
    sql,
    timers.map((timer) => timer.sessionId),
  );
  const closed: SessionRecord[] = [];
  const later: Timer[] = [];
  for (const { sessionId, dueAt, windowMs } of timers) {
    const session = sessions.get(sessionId);
    if (session?.status !== "open") continue;
    const end = windowMs === null ? dueAt : session.lastAt + windowMs;
    if (end > dueAt) later.push({ kind: "session.close", key: sessionId, dueAt: end, payload: { windowMs } });
    else closed.push({ ...session, status: "closed", closedAt: end, closedBy: "inactivity" });
  }
  setTimers(sql, later);
  appendSessions(sql, closed, now);
  return closed;
}

export function findSession(sql: SqlStorage, sessionId: string): SessionRecord | null {
  return sessionsById(sql, [sessionId]).get(sessionId) ?? null;
}

/** Sessions as they stand (the inbox over `sessions`), by id. */
export function sessionsById(sql: SqlStorage, sessionIds: readonly string[]): Map<string, SessionRecord> {
  const pending = pendingSessions(sql, "sessionId", sessionIds);
  const folded = sql.exec<SessionRow>(
    "SELECT s.* FROM json_each(?) j CROSS JOIN sessions s WHERE s.session_id = j.value",
    JSON.stringify(sessionIds),
  );
  return new Map(overlay(folded, pending).map((session) => [session.sessionId, session]));
}

/** The session inbox's fold generation (in `inbox_folds`), half of what stamps the sessions held. */
const inboxFolds = new InboxKeys("session_inbox", "profile_id");

/**
 * How long the session inbox may wait before it is folded, and how many sessions it may hold:
 * readers read it from memory (`HeldSessions`), and a fold writes each session once however
 * many batches changed it, so a fold of five seconds of saturating batches writes the table's
 * pages about once where five folds wrote each of them five times (docs/performance.md).
 */
const SESSIONS_FOLD_MS = 5_000;
const MAX_INBOX_SESSIONS = 20_000;

/** Per object: a Durable Object's `SqlStorage` handle lives as long as the object. */
const heldPerDatabase = new WeakMap<SqlStorage, HeldSessions>();

/** The sessions held in memory for this database, let go of if the database moved on without them. */
function heldSessions(sql: SqlStorage): HeldSessions {
  const stamp = inboxStamp(sql);
  let held = heldPerDatabase.get(sql);
  if (held) held.check(stamp);
  else {
    held = new HeldSessions(stamp);
    heldPerDatabase.set(sql, held);
  }
  return held;
}

/** Where the session inbox stands: its fold generation and its last `seq`. */
function inboxStamp(sql: SqlStorage): string {
  const last = sql.exec<{ seq: number | null }>("SELECT max(seq) AS seq FROM session_inbox").one().seq;
  return `${inboxFolds.generation(sql)}:${last ?? 0}`;
}

/** Deletes sessions (erasure, retention): the sessions held in memory are let go of. */
export function deleteSessions(sql: SqlStorage, sessionIds: readonly string[]): void {
  sql.exec("DELETE FROM sessions WHERE session_id IN (SELECT value FROM json_each(?))", JSON.stringify(sessionIds));
  heldPerDatabase.get(sql)?.deleted();
}

/** Writes sessions' new states to the inbox, to be folded within `SESSIONS_FOLD_MS`. */
function appendSessions(sql: SqlStorage, sessions: readonly SessionRecord[], now: number): void {
  if (sessions.length === 0) return;
  const held = heldSessions(sql);
  sql.exec(
    `INSERT INTO session_inbox (${SESSION_COLUMNS}) SELECT ${SESSION_COLUMN_VALUES} FROM json_each(?) s`,
    JSON.stringify(sessions.map(columns)),
  );
  held.appended(sessions, inboxStamp(sql));
  const fold: Timer = { kind: "sessions.fold", key: "", dueAt: now + SESSIONS_FOLD_MS, payload: null };
  if (held.inboxSize >= MAX_INBOX_SESSIONS) setTimer(sql, { ...fold, dueAt: now });
  else setTimerOnce(sql, fold);
}

/** The inbox's latest state of the sessions whose `column` is one of `values`, from memory (read once after a restart). */
function pendingSessions(sql: SqlStorage, column: InboxColumn, values: readonly string[]): Map<string, SessionRecord> {
  return heldSessions(sql).inboxWhere(() => readInbox(sql), column, values);
}

function* readInbox(sql: SqlStorage): Iterable<SessionRecord> {
  for (const row of sql.exec<SessionRow>("SELECT * FROM session_inbox ORDER BY seq")) yield record(row);
}

/** Folded rows, each replaced by its state in the inbox, and the inbox's sessions not folded yet. */
function overlay(folded: Iterable<SessionRow>, pending: ReadonlyMap<string, SessionRecord>): SessionRecord[] {
  const sessions: SessionRecord[] = [];
  for (const row of folded) if (!pending.has(row.session_id)) sessions.push(record(row));
  sessions.push(...pending.values());
  return sessions;
}

/**
 * A session's key: a conversation's or task's id, then the profile (`c:` or `t:`, one session
 * line per profile in it), or for events with neither the profile and its channel (`p:`). The id
 * comes first so that every profile's sessions of one conversation are one range of
 * `sessions_conversation`, and no second index by conversation is written for each new session.
 */
function conversationKey(kind: SessionRecord["kind"], id: string, profileId: string): string {
  return `${kind === "task" ? "t" : "c"}:${id}:${profileId}`;
}

/** The keys of a conversation's (or task's) sessions lie in [from, to): ";" follows ":". */
const conversationRange = (kind: SessionRecord["kind"], id: string): [string, string] => {
  const from = conversationKey(kind, id, "");
  return [from, `${from.slice(0, -1)};`];
};

/** `?1`, `?2`: a `conversationRange`; `?3` the id (the range also holds ids that begin with it and a colon). */
const IN_CONVERSATION = "conversation_key >= ?1 AND conversation_key < ?2 AND conversation_id = ?3";

/** The profiles with a session of one conversation or task (forget keeps what others share). */
export function conversationProfiles(sql: SqlStorage, kind: SessionRecord["kind"], id: string): string[] {
  const [from, to] = conversationRange(kind, id);
  return sql
    .exec<{ profile_id: string }>(`SELECT DISTINCT profile_id FROM sessions WHERE ${IN_CONVERSATION}`, from, to, id)
    .toArray()
    .map((row) => row.profile_id);
}

/** The open sessions of some profiles (a root and its members), oldest first. */
export function openSessionsOf(sql: SqlStorage, profileIds: readonly string[]): SessionRecord[] {
  const pending = pendingSessions(sql, "profileId", profileIds);
  const folded = sql.exec<SessionRow>(
    "SELECT s.* FROM json_each(?) j CROSS JOIN sessions s WHERE s.profile_id = j.value AND s.status = 'open'",
    JSON.stringify(profileIds),
  );
  return overlay(folded, pending)
    .filter((session) => session.status === "open")
    .sort((a, b) => a.startedAt - b.startedAt);
}

/** Records the first moment a person took over from an AI agent. */
export function noteHandoff(sql: SqlStorage, session: SessionRecord, at: number, now: number): void {
  if (session.handoffAt !== null && session.handoffAt <= at) return;
  appendSessions(sql, [{ ...session, handoffAt: at }], now);
}

/** The latest session of a conversation (by any of its ids) of each profile that has one. */
export function latestSessionsOf(sql: SqlStorage, conversationId: string): SessionRecord[] {
  foldSessions(sql);
  const first =
    sql
      .exec<{ conversation_id: string }>("SELECT conversation_id FROM conversation_aliases WHERE alias = ?", conversationId)
      .toArray()[0]?.conversation_id ?? conversationId;
  const latest = new Map<string, SessionRecord>();
  const rows = sql.exec<SessionRow>(
    `SELECT * FROM sessions WHERE ${IN_CONVERSATION} AND kind = 'conversation' ORDER BY started_at DESC`,
    ...conversationRange("conversation", first),
    first,
  );
  for (const row of rows) if (!latest.has(row.profile_id)) latest.set(row.profile_id, record(row));
  return [...latest.values()];
}
