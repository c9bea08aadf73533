import type { LiveChanges } from "./intake";
import type { LiveEntry, LiveItem } from "./live";

/** The most items `live` holds: the latest of a profile's open sessions. */
export const LIVE_LIMIT = 50;

/** About what holding a profile costs before any item: a profile with no open session counts too. */
const PROFILE_BYTES = 200;

interface Entry {
  sessions: Map<string, LiveEntry[]>;
  bytes: number;
  count: number;
  /** Whether older items were let go to hold at most `LIVE_LIMIT`: a closing session then means a reload. */
  trimmed: boolean;
}

/**
 * The hot tier (DESIGN 3.8): in memory, per profile (the profile a session belongs to), the
 * events of its open sessions. Kept up to date by the request that stores a batch, so a message
 * is in `live` of the next read; a profile not held is loaded from SQLite on its read. Evicts the
 * least recently used profiles beyond the budget. It can be dropped at any time.
 */
export class HotTier {
  #entries = new Map<string, Entry>();
  #bytes = 0;

  constructor(public budgetBytes: number) {}

  get bytes(): number {
    return this.#bytes;
  }

  /** The live items of some profiles (a root and its members), oldest first, loading those not held. */
  live(profileIds: readonly string[], load: (profileId: string) => LiveEntry[]): LiveItem[] {
    const all: LiveEntry[] = [];
    for (const profileId of profileIds) {
      let entry = this.#entries.get(profileId);
      if (entry) {
        this.#entries.delete(profileId);
        this.#entries.set(profileId, entry);
      } else {
        entry = { sessions: new Map(), bytes: PROFILE_BYTES, count: 0, trimmed: false };
        for (const live of load(profileId)) add(entry, live);
        this.#entries.set(profileId, entry);
        this.#bytes += entry.bytes;
      }
      for (const items of entry.sessions.values()) all.push(...items);
    }
    this.#evict();
    all.sort(byTime);
    return all.slice(-LIVE_LIMIT).map((live) => live.item);
  }

  /** What a committed batch or import slice changed: the next read from any channel sees it. */
  apply(changes: LiveChanges): void {
    this.forget(changes.reopened);
    this.add(changes.added);
    this.close(changes.closed);
  }

  /** Events a batch placed in open sessions: added to the profiles held (the others load on read). */
  add(entries: readonly LiveEntry[]): void {
    for (const live of entries) {
      const entry = this.#entries.get(live.profileId);
      if (!entry) continue;
      const before = entry.bytes;
      add(entry, live);
      this.#bytes += entry.bytes - before;
    }
    this.#evict();
  }

  /** Sessions that closed leave `live`. */
  close(sessions: readonly { sessionId: string; profileId: string }[]): void {
    for (const { sessionId, profileId } of sessions) {
      const entry = this.#entries.get(profileId);
      const items = entry?.sessions.get(sessionId);
      if (!entry || !items) continue;
      if (entry.trimmed) {
        this.forget([profileId]);
        continue;
      }
      entry.count -= items.length;
      const bytes = items.reduce((sum, live) => sum + sizeOf(live), 0);
      entry.sessions.delete(sessionId);
      entry.bytes -= bytes;
      this.#bytes -= bytes;
    }
  }

  /** Forgets profiles (their sessions moved, e.g. after a merge or undo): they load again on read. */
  forget(profileIds?: readonly string[]): void {
    for (const profileId of profileIds ?? [...this.#entries.keys()]) {
      this.#bytes -= this.#entries.get(profileId)?.bytes ?? 0;
      this.#entries.delete(profileId);
    }
  }

  #evict(): void {
    for (const [profileId, entry] of this.#entries) {
      if (this.#bytes <= this.budgetBytes) return;
      this.#entries.delete(profileId);
      this.#bytes -= entry.bytes;
    }
  }
}

function add(entry: Entry, live: LiveEntry): void {
  const items = entry.sessions.get(live.sessionId) ?? [];
  if (items.some((held) => held.item.event_id === live.item.event_id)) return;
  let at = items.length;
  while (at > 0 && byTime(items[at - 1] as LiveEntry, live) > 0) at--;
  items.splice(at, 0, live);
  entry.sessions.set(live.sessionId, items);
  entry.bytes += sizeOf(live);
  entry.count++;
  if (entry.count > LIVE_LIMIT) trimOldest(entry);
}

function trimOldest(entry: Entry): void {
  let oldest: LiveEntry[] | undefined;
  for (const items of entry.sessions.values()) {
    const first = items[0];
    const held = oldest?.[0];
    if (first && (!held || byTime(first, held) < 0)) oldest = items;
  }
  const dropped = oldest?.shift();
  if (!dropped) return;
  entry.bytes -= sizeOf(dropped);
  entry.count--;
  entry.trimmed = true;
}

const byTime = (a: LiveEntry, b: LiveEntry) => a.occurredAt - b.occurredAt || a.seq - b.seq;

/** About what an item holds in memory: UTF-16 text and ids, and the objects around them. */
function sizeOf(live: LiveEntry): number {
  return 2 * ((live.item.text?.length ?? 0) + 160) + 200;
}
