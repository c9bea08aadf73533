import type { BatchItem } from "../../contract/batch";
import type { SpaceConfigValues } from "../../contract/config";
import { queueCompile } from "./compiler";
import { type LiveEntry, liveItemOf } from "./live";
import { type SessionEvent, SessionPlacer } from "./sessions";

/** What a stored batch changed for the hot tier: events now live, sessions now closed or open again. */
export interface LiveChanges {
  added: LiveEntry[];
  closed: { sessionId: string; profileId: string }[];
  /** Profiles with a session open again, whose earlier events the hot tier never held: read again. */
  reopened: string[];
}

/**
 * The memory effects of a batch, in its transaction: every event placed in a session (its item
 * row records which), ending and handoff items applied to theirs, the sessions queued for the
 * compiler. Live changes are handed back for the hot tier, which the object updates once the
 * transaction is committed.
 */
export class MemoryIntake {
  #placer: SessionPlacer;
  #queued = new Map<string, { profileId: string; events: number }>();
  #live: { sessionId: string; entry: LiveEntry }[] = [];

  constructor(
    private readonly sql: SqlStorage,
    config: SpaceConfigValues,
    private readonly now: number,
  ) {
    this.#placer = new SessionPlacer(sql, config, now);
  }

  /** Before identity: which of the items' conversation ids are aliases. */
  prefetch(items: readonly BatchItem[]): void {
    this.#placer.prefetchAliases(
      items.flatMap((item) =>
        item.type === "event" || item.type === "conversation.ended" || item.type === "task.ended" || item.type === "handoff"
          ? [
              {
                conversationId: ("conversation_id" in item ? item.conversation_id : undefined) ?? null,
                conversationAliases: (item.type === "event" ? item.conversation_aliases : undefined) ?? [],
              },
            ]
          : [],
      ),
    );
  }

  /** After identity: the stored sessions the events could join, read at once. */
  prefetchSessions(resolved: readonly { item: BatchItem; profileId: string | null; occurredAt: number }[]): void {
    this.#placer.prefetchSessions(
      resolved.flatMap(({ item, profileId, occurredAt }) =>
        item.type === "event" && profileId !== null ? [sessionEventOf(item, profileId, occurredAt)] : [],
      ),
    );
  }

  /** The session of an accepted item (null for items that belong to none). */
  place(item: BatchItem, profileId: string | null, itemId: string, occurredAt: number): string | null {
    switch (item.type) {
      case "event": {
        if (profileId === null) return null;
        const session = this.#placer.place(sessionEventOf(item, profileId, occurredAt));
        this.#queue(session.sessionId, session.profileId);
        this.#live.push({
          sessionId: session.sessionId,
          entry: {
            sessionId: session.sessionId,
            profileId: session.profileId,
            occurredAt,
            seq: 0, // the stored `seq`, known at `finish`
            item: liveItemOf(itemId, occurredAt, item),
          },
        });
        return session.sessionId;
      }
      case "conversation.ended":
      case "task.ended":
      case "handoff": {
        const sessions = this.#placer.mark({
          conversationId: ("conversation_id" in item ? item.conversation_id : undefined) ?? null,
          taskId: ("task_id" in item ? item.task_id : undefined) ?? null,
          at: occurredAt,
          effect: item.type === "handoff" ? "handoff" : "ended",
        });
        for (const session of sessions) this.#queue(session.sessionId, session.profileId);
        return sessions[0]?.sessionId ?? null;
      }
      case "identify":
        // Its profile may have absorbed others: their memory joins it.
        if (profileId !== null) this.#queue(`profile:${profileId}`, profileId);
        return null;
      default:
        return null;
    }
  }

  /**
   * Writes the sessions and the compile queue; answers what the hot tier must learn. `seqs`: the
   * stored items' `seq` by item id, which orders events of one time as a read from SQLite does.
   */
  finish(seqs: ReadonlyMap<string, number>): LiveChanges {
    const { touched: sessions, reopened } = this.#placer.finish();
    queueCompile(this.sql, this.#queued, this.now);
    const open = new Set(sessions.filter((session) => session.status === "open").map((session) => session.sessionId));
    return {
      added: this.#live
        .filter((live) => open.has(live.sessionId))
        .map(({ entry }) => ({ ...entry, seq: seqs.get(entry.item.event_id) ?? entry.seq })),
      closed: sessions
        .filter((session) => session.status === "closed")
        .map((session) => ({ sessionId: session.sessionId, profileId: session.profileId })),
      reopened: reopened.map((session) => session.profileId),
    };
  }

  #queue(sessionId: string, profileId: string): void {
    const queued = this.#queued.get(sessionId);
    this.#queued.set(sessionId, { profileId, events: (queued?.events ?? 0) + 1 });
  }
}

function sessionEventOf(item: Extract<BatchItem, { type: "event" }>, profileId: string, occurredAt: number): SessionEvent {
  return {
    profileId,
    occurredAt,
    channel: item.channel ?? null,
    conversationId: item.conversation_id ?? null,
    conversationAliases: item.conversation_aliases ?? [],
    taskId: item.task_id ?? null,
    canonicalType: item.canonical_type ?? null,
  };
}
