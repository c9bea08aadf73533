import type { BatchItem } from "../../contract/batch";
import type { TimelineEvent, TimelinePage } from "../../contract/history";
import { decodeCursor, encodeCursor } from "../../http/cursor";
import { Problem } from "../../http/problem";
import type { HandleInput } from "../identity/handles";
import { profileIdentity, profileOfHandle, type Viewer } from "../identity/profile-view";
import { membersOf, rootOf } from "../identity/profiles";
import { foldPlacements } from "./session-events";
import { foldSessions } from "./sessions";

/** What a page asks for: times in ms, `to` exclusive; the cursor as sent, and where it was sent (for `detail`). */
export interface TimelineRequest {
  cursor?: string | undefined;
  cursorPlace: "cursor" | "query.cursor";
  limit: number;
  from?: number | undefined;
  to?: number | undefined;
  channels?: readonly string[] | undefined;
  viewer: Viewer;
}

/** A position in memory order: events sort by `(occurred_at, seq)`, and a page goes below its cursor. */
interface Key {
  at: number;
  seq: number;
}

const below = (a: Key, b: Key) => a.at < b.at || (a.at === b.at && a.seq < b.seq);
const newestFirst = (a: Key, b: Key) => b.at - a.at || b.seq - a.seq;
const TOP: Key = { at: Number.MAX_SAFE_INTEGER, seq: Number.MAX_SAFE_INTEGER };
/** Sessions are read from each member in chunks that grow, so a first page reads a few and a sparse filter few statements. */
const FIRST_SESSION_CHUNK = 8;
const MAX_SESSION_CHUNK = 512;
const FIRST_ITEM_BATCH = 2;
const MAX_ITEM_BATCH = 256;

/**
 * `POST /v1/timeline`: the profile holding a handle. A read creates nothing: an unknown handle is
 * `404`, the same as one the viewer may not see (`profileOfHandle`).
 */
export function timelineOfHandle(sql: SqlStorage, handle: HandleInput, request: TimelineRequest): TimelinePage {
  return timelineOf(sql, profileOfHandle(sql, handle, request.viewer), request);
}

/**
 * A page of a profile's events (every member's: merges gather, never move, events), newest
 * first by `(occurred_at, seq)`, below the cursor. The cursor is that key of the page's last
 * event, so a page boundary never skips or repeats an event, whatever is written between pages
 * (an event replayed below the cursor shows on a later page).
 *
 * `items` has no index by profile (it would cost ingest): every event belongs to a session of
 * its profile, and a session holds no event after its `last_at` nor before its `started_at`.
 * So the members' sessions are walked by `last_at` descending, each giving its own newest
 * events below the cursor (`session_events`), merged, until the page is full and the next
 * session's `last_at` is below the page's oldest event: a page reads about as many sessions
 * as it shows, whatever the size of the profile.
 */
export function timelineOf(sql: SqlStorage, profileId: string, request: TimelineRequest): TimelinePage {
  // The walk reads sessions and their events in index order: what batches appended is folded first.
  foldSessions(sql);
  foldPlacements(sql);
  const root = rootOf(sql, profileId);
  if (!root) throw new Problem("not_found", "no such profile");
  // A vendor person sees only a profile its sources wrote a handle of (as the profile read).
  if (request.viewer.sources !== null && !profileIdentity(sql, root.profileId, request.viewer)) {
    throw new Problem("not_found", "no such profile");
  }
  const cursor = request.cursor === undefined ? TOP : cursorKey(request.cursor, request.cursorPlace);
  const to = request.to === undefined ? TOP : { at: request.to, seq: 0 };
  const upper = below(to, cursor) ? to : cursor;
  const from = request.from ?? 0;
  const keys = upper.at < from ? [] : newestKeys(sql, membersOf(sql, root.profileId), upper, from, request);
  const data = keys.slice(0, request.limit);
  const last = data.at(-1);
  return {
    profile_id: root.profileId,
    data: eventsOf(sql, data),
    next_cursor: keys.length > request.limit && last ? encodeCursor(`${last.at}:${last.seq}`) : null,
  };
}

function cursorKey(cursor: string, place: TimelineRequest["cursorPlace"]): Key {
  const refused = () => new Problem("invalid_input", `${place}: not_issued_by_this_service`);
  let after: string | null;
  try {
    after = decodeCursor(cursor);
  } catch {
    throw refused();
  }
  const match = /^(\d{1,15}):(\d{1,18})$/.exec(after ?? "");
  if (!match) throw refused();
  return { at: Number(match[1]), seq: Number(match[2]) };
}

/** The `limit + 1` newest event keys below `upper` and from `from` on (the extra one says there is more). */
function newestKeys(sql: SqlStorage, members: readonly string[], upper: Key, from: number, request: TimelineRequest): Key[] {
  const want = request.limit + 1;
  const walks = members.map((member) => new SessionWalk(sql, member, upper.at, from));
  const channels = request.channels ? JSON.stringify(request.channels) : null;
  let page: Key[] = [];
  let batchSize = FIRST_ITEM_BATCH;
  for (;;) {
    const batch: string[] = [];
    while (batch.length < batchSize) {
      const next = newestHead(walks);
      const oldest = page[want - 1];
      // A full page whose oldest event is newer than anything the next session holds is final.
      if (!next || (oldest && next.head.lastAt < oldest.at)) break;
      batch.push(next.take().sessionId);
    }
    if (batch.length === 0) return page;
    const rows = sql
      .exec<{ seq: number; occurred_at: number }>(
        `SELECT i.seq, i.occurred_at FROM json_each(?1) s CROSS JOIN items i WHERE i.seq IN (
           SELECT e.seq FROM session_events e CROSS JOIN items x ON x.seq = e.seq
           WHERE e.session_id = s.value AND (e.occurred_at, e.seq) < (?2, ?3) AND e.occurred_at >= ?4
             AND (?5 IS NULL OR x.channel IN (SELECT value FROM json_each(?5)))
           ORDER BY e.occurred_at DESC, e.seq DESC LIMIT ?6)`,
        JSON.stringify(batch),
        upper.at,
        upper.seq,
        from,
        channels,
        want,
      )
      .toArray();
    page = [...page, ...rows.map((row) => ({ at: row.occurred_at, seq: row.seq }))].sort(newestFirst).slice(0, want);
    batchSize = Math.min(batchSize * 2, MAX_ITEM_BATCH);
  }
}

function newestHead(walks: readonly SessionWalk[]): SessionWalk | null {
  let best: SessionWalk | null = null;
  for (const walk of walks) {
    if (walk.peek() && (!best || walk.head.lastAt > best.head.lastAt)) best = walk;
  }
  return best;
}

interface SessionHead {
  sessionId: string;
  lastAt: number;
  rowid: number;
}

/**
 * One member's sessions that may hold events below `upperAt` and from `from` on, by `last_at`
 * descending (then rowid), read in growing chunks through `sessions_profile_last`.
 */
class SessionWalk {
  #buffer: SessionHead[] = [];
  #after: { lastAt: number; rowid: number } = { lastAt: Number.MAX_SAFE_INTEGER, rowid: Number.MAX_SAFE_INTEGER };
  #chunk = FIRST_SESSION_CHUNK;
  #done = false;

  constructor(
    private readonly sql: SqlStorage,
    private readonly profileId: string,
    private readonly upperAt: number,
    private readonly from: number,
  ) {}

  get head(): SessionHead {
    const head = this.#buffer[0];
    if (!head) throw new Error("peek() before head");
    return head;
  }

  peek(): boolean {
    if (this.#buffer.length === 0 && !this.#done) this.#read();
    return this.#buffer.length > 0;
  }

  take(): SessionHead {
    const head = this.head;
    this.#buffer.shift();
    return head;
  }

  #read(): void {
    const rows = this.sql
      .exec<{ rowid: number; session_id: string; last_at: number }>(
        `SELECT rowid, session_id, last_at FROM sessions
         WHERE profile_id = ? AND (last_at, rowid) < (?, ?) AND last_at >= ? AND started_at <= ?
         ORDER BY last_at DESC, rowid DESC LIMIT ?`,
        this.profileId,
        this.#after.lastAt,
        this.#after.rowid,
        this.from,
        this.upperAt,
        this.#chunk,
      )
      .toArray();
    if (rows.length < this.#chunk) this.#done = true;
    this.#chunk = Math.min(this.#chunk * 2, MAX_SESSION_CHUNK);
    const last = rows.at(-1);
    if (last) this.#after = { lastAt: last.last_at, rowid: last.rowid };
    this.#buffer = rows.map((row) => ({ sessionId: row.session_id, lastAt: row.last_at, rowid: row.rowid }));
  }
}

/** The page's events, read by key. */
function eventsOf(sql: SqlStorage, keys: readonly Key[]): TimelineEvent[] {
  if (keys.length === 0) return [];
  const rows = sql
    .exec<{ seq: number; item_id: string; occurred_at: number; session_id: string; body: string }>(
      `SELECT i.seq, i.item_id, i.occurred_at, i.session_id, i.body FROM json_each(?) k CROSS JOIN items i ON i.seq = k.value`,
      JSON.stringify(keys.map((key) => key.seq)),
    )
    .toArray();
  const bySeq = new Map(rows.map((row) => [row.seq, row]));
  return keys.flatMap((key) => {
    const row = bySeq.get(key.seq);
    if (!row) return [];
    const item = JSON.parse(row.body) as Extract<BatchItem, { type: "event" }>;
    return [
      {
        event_id: row.item_id,
        occurred_at: new Date(row.occurred_at).toISOString(),
        kind: item.kind,
        channel: item.channel ?? null,
        speaker_role: item.speaker?.role ?? null,
        text: item.content?.text ?? item.content?.transcript ?? null,
        conversation_id: item.conversation_id ?? null,
        episode_id: row.session_id,
      },
    ];
  });
}

/** A page request from a body or a query (timestamps already normalized to UTC). */
export function timelineRequest(
  input: {
    cursor?: string | undefined;
    limit: number;
    from?: string | undefined;
    to?: string | undefined;
    channels?: readonly string[] | undefined;
  },
  cursorPlace: TimelineRequest["cursorPlace"],
  viewer: Viewer,
): TimelineRequest {
  const ms = (at: string | undefined) => (at === undefined ? undefined : Date.parse(at));
  return { ...input, from: ms(input.from), to: ms(input.to), cursorPlace, viewer };
}
