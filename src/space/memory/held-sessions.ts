import type { SessionRecord } from "./sessions";

/**
 * Sessions held in memory per database (docs/performance.md, "Sessions held in memory"), in two
 * parts:
 * - **the session inbox as it stands** (`session_inbox`: every state appended since the last
 *   fold, the latest per session), by session, profile and conversation key, so that reading
 *   through the inbox scans nothing, however many seconds of batches it holds;
 * - **the sessions a batch may join**, by conversation key: an entry holds every session of the
 *   key started at or after the latest one started at or before `from` (what the batch prefetch
 *   reads for an event at `from`, with no upper bound), in their latest states: enough to place
 *   any event at `from` or later exactly as a read would, so a batch meeting a conversation again
 *   reads none of its sessions.
 * Every new state is appended by `sessions.ts` (`appendSessions`), which passes it here; sessions
 * are only deleted through `deleteSessions`, which lets go of the keys held.
 *
 * A rollback must not leave states here that SQLite does not have: each change is stamped with
 * the session inbox's fold generation and its last `seq` after it, and any read or change first
 * compares that stamp with the database's. A write rolled back (or one this object did not see)
 * leaves another stamp, and everything held is let go of: the inbox is read again whole, once.
 */

/** Conversation keys held, the least recently used let go of first. */
const MAX_KEYS = 16_384;
/** Sessions held per key: its oldest go first (a key of years of sessions holds its latest). */
const MAX_PER_KEY = 32;

interface Entry {
  from: number;
  sessions: Map<string, SessionRecord>;
}

export type InboxColumn = "sessionId" | "profileId" | "conversationKey";

/** The inbox's latest state of each session in it, found by any of `InboxColumn`. */
class Inbox {
  readonly byId = new Map<string, SessionRecord>();
  readonly #byProfile = new Map<string, Set<string>>();
  readonly #byKey = new Map<string, Set<string>>();

  add(session: SessionRecord): void {
    this.byId.set(session.sessionId, { ...session });
    addTo(this.#byProfile, session.profileId, session.sessionId);
    addTo(this.#byKey, session.conversationKey, session.sessionId);
  }

  where(column: InboxColumn, values: readonly string[]): Map<string, SessionRecord> {
    const found = new Map<string, SessionRecord>();
    for (const value of values) {
      const ids = column === "sessionId" ? [value] : ((column === "profileId" ? this.#byProfile : this.#byKey).get(value) ?? []);
      for (const id of ids) {
        const session = this.byId.get(id);
        if (session) found.set(id, { ...session });
      }
    }
    return found;
  }
}

const addTo = (index: Map<string, Set<string>>, value: string, id: string) => {
  const ids = index.get(value) ?? new Set<string>();
  ids.add(id);
  index.set(value, ids);
};

export class HeldSessions {
  #entries = new Map<string, Entry>();
  /** Null until read from the database, and again once what is held is let go of. */
  #inbox: Inbox | null = null;
  #stamp: string;

  constructor(stamp: string) {
    this.#stamp = stamp;
  }

  /** Whether what is held was stamped `stamp`; if not, nothing is held any more and it starts over at `stamp`. */
  check(stamp: string): void {
    if (stamp === this.#stamp) return;
    this.#entries.clear();
    this.#inbox = null;
    this.#stamp = stamp;
  }

  /** How many sessions the inbox holds, as far as it is held (none while it is not). */
  get inboxSize(): number {
    return this.#inbox?.byId.size ?? 0;
  }

  /**
   * The inbox's states of the sessions whose `column` is one of `values` (all of them without
   * `values`); `read` reads the whole inbox, in `seq` order, when it is not held.
   */
  inboxWhere(read: () => Iterable<SessionRecord>, column: InboxColumn, values?: readonly string[]): Map<string, SessionRecord> {
    if (!this.#inbox) {
      this.#inbox = new Inbox();
      for (const session of read()) this.#inbox.add(session);
    }
    return values ? this.#inbox.where(column, values) : new Map(this.#inbox.byId);
  }

  /** Copies of the sessions of `key` that any event at `from` or later may join, or undefined when not held. */
  covering(key: string, from: number): SessionRecord[] | undefined {
    const entry = this.#entries.get(key);
    if (!entry || entry.from > from) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return [...entry.sessions.values()].map((session) => ({ ...session }));
  }

  /** What a read of `key` from `from` on found (its latest states). */
  hold(key: string, from: number, sessions: readonly SessionRecord[]): void {
    const entry: Entry = { from, sessions: new Map(sessions.map((session) => [session.sessionId, { ...session }])) };
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    trim(entry);
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= MAX_KEYS) break;
      this.#entries.delete(oldest);
    }
  }

  /** New states appended to the inbox, then stamped `stamp`. */
  appended(sessions: readonly SessionRecord[], stamp: string): void {
    for (const session of sessions) {
      this.#inbox?.add(session);
      const entry = this.#entries.get(session.conversationKey);
      if (!entry) continue;
      entry.sessions.set(session.sessionId, { ...session });
      trim(entry);
    }
    this.#stamp = stamp;
  }

  /** The inbox folded (every state kept, in `sessions` now) and emptied, then stamped `stamp`. */
  folded(stamp: string): void {
    this.#inbox = new Inbox();
    this.#stamp = stamp;
  }

  /** Sessions deleted from `sessions`: no key holds them any more (the inbox is as it was). */
  deleted(): void {
    this.#entries.clear();
  }
}

/**
 * Lets go of a key's oldest sessions past `MAX_PER_KEY` (those started at the same time as the
 * last one kept stay too): the oldest kept then starts what the entry covers.
 */
function trim(entry: Entry): void {
  if (entry.sessions.size <= MAX_PER_KEY) return;
  const starts = [...entry.sessions.values()].map((session) => session.startedAt).sort((a, b) => b - a);
  const oldestKept = starts[MAX_PER_KEY - 1] ?? entry.from;
  for (const [id, session] of entry.sessions) if (session.startedAt < oldestKept) entry.sessions.delete(id);
  entry.from = Math.max(entry.from, oldestKept);
}
