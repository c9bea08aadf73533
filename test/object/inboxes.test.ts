import { env, runInDurableObject } from "cloudflare:test";
import { drizzle } from "drizzle-orm/durable-sqlite";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import migration from "../../migrations/space/0015_session_events.sql";
import { findHandle, foldSightings, handlesOfRoot } from "../../src/space/identity/handle-store";
import { normalizeHandle } from "../../src/space/identity/handles";
import { rootOf } from "../../src/space/identity/profiles";
import { implicitTransaction } from "../../src/space/implicit-transaction";
import { openIntake } from "../../src/space/intake";
import { foldPlacements, latestSessionEvents, sessionEvents } from "../../src/space/memory/session-events";
import { closeSessions, foldSessions, openSessionsOf, type SessionRecord, sessionsById } from "../../src/space/memory/sessions";
import { phone } from "../support/identity";
import { TRACK_CALLER as caller, storeBatch, withIntake } from "../support/intake";
import { runs } from "../support/property-runs";
import { message } from "../support/seed";

/**
 * The inboxes batches append to instead of writing in place, folded later: sessions
 * (`foldSessions`), handles' seen times (`foldSightings`) and where events went (`foldPlacements`). What is read through an inbox is
 * what is folded, and where folds fall between batches changes nothing: the same batches folded
 * after each one (as they were written before the inboxes) give the same sessions.
 */

const NOW = Date.UTC(2026, 10, 24, 12, 0, 0);
const MINUTE = 60_000;
const CUSTOMER = phone("+15555550700");
const CONFIG = { clock_tolerance_s: 300 };
const iso = (ms: number) => new Date(ms).toISOString();

type Spec = { minute: number; conversation: "c1" | "c2" | null; ends: boolean };

const specArb: fc.Arbitrary<Spec> = fc.record({
  minute: fc.integer({ min: 1, max: 240 }),
  conversation: fc.constantFrom("c1" as const, "c2" as const, null),
  ends: fc.boolean(),
});

function itemOf(spec: Spec, index: number): Record<string, unknown> {
  const at = iso(NOW - spec.minute * MINUTE);
  if (spec.ends && spec.conversation !== null) {
    return { type: "conversation.ended", idempotency_key: `e-${index}`, conversation_id: spec.conversation, occurred_at: at };
  }
  return message({
    idempotency_key: `e-${index}`,
    handles: [CUSTOMER],
    channel: "whatsapp",
    occurred_at: at,
    ...(spec.conversation === null ? { conversation_id: undefined } : { conversation_id: spec.conversation }),
  });
}

/** Batches of the items in the order given, cut after the indexes in `cuts`. */
function batchesOf(specs: readonly Spec[], cuts: readonly number[]): unknown[][] {
  const items = specs.map(itemOf);
  const batches: unknown[][] = [[]];
  items.forEach((item, index) => {
    batches.at(-1)?.push(item);
    if (cuts.includes(index)) batches.push([]);
  });
  return batches.filter((batch) => batch.length > 0);
}

const ALL_IDS = "SELECT session_id FROM sessions UNION SELECT session_id FROM session_inbox";

/** Sessions without their ids (two spaces give different ones), in one order. */
function comparable(sessions: Iterable<SessionRecord>): unknown[] {
  return [...sessions]
    .map((s) => [s.conversationId, s.kind, s.channel, s.startedAt, s.lastAt, s.status, s.closedAt, s.closedBy, s.handoffAt])
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

const tableOf = (sql: SqlStorage) =>
  [...sql.exec<{ session_id: string }>("SELECT session_id FROM sessions")].map((row) => row.session_id);

describe("the session inbox", () => {
  it("reads as it folds, and where folds and a batch's chunks fall changes no session", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(specArb, { minLength: 1, maxLength: 14 }),
        fc.array(fc.integer({ min: 0, max: 13 }), { maxLength: 5 }),
        fc.array(fc.boolean(), { minLength: 14, maxLength: 14 }),
        fc.integer({ min: 1, max: 15 }),
        async (specs, cuts, folds, chunkItems) => {
          const batches = batchesOf(specs, cuts);
          const sometimes = await withIntake((intake, sql) => {
            batches.forEach((items, index) => {
              storeBatch(intake, caller, { items }, NOW, CONFIG, chunkItems);
              if (folds[index]) foldSessions(sql);
              if (folds[(index + 7) % folds.length]) foldPlacements(sql);
              // `live`'s read, which skips the inbox for profiles it holds nothing of, sees what a read of all of it sees.
              const all = [
                ...sessionsById(
                  sql,
                  [...sql.exec<{ session_id: string }>(ALL_IDS)].map((row) => row.session_id),
                ).values(),
              ];
              for (const profileId of new Set(all.map((session) => session.profileId))) {
                const open = all.filter((session) => session.profileId === profileId && session.status === "open");
                expect(comparable(openSessionsOf(sql, [profileId]))).toEqual(comparable(open));
              }
            });
            const ids = [...sql.exec<{ session_id: string }>(ALL_IDS)].map((row) => row.session_id);
            const throughInbox = comparable(sessionsById(sql, ids).values());
            const eventsThroughInbox = ids.map((id) => [sessionEvents(sql, id), latestSessionEvents(sql, id, 3)]);
            foldSessions(sql);
            foldPlacements(sql);
            expect(sql.exec("SELECT 1 FROM item_placements").toArray()).toEqual([]);
            expect(ids.map((id) => [sessionEvents(sql, id), latestSessionEvents(sql, id, 3)])).toEqual(eventsThroughInbox);
            // Every event is in one session, once.
            const placed = ids.flatMap((id) => sessionEvents(sql, id).map((event) => event.itemId));
            expect(placed.sort()).toEqual(
              [...sql.exec<{ item_id: string }>("SELECT item_id FROM items WHERE type = 'event'")]
                .map((row) => row.item_id)
                .sort(),
            );
            expect(sql.exec("SELECT 1 FROM session_inbox").toArray()).toEqual([]);
            const folded = comparable(sessionsById(sql, tableOf(sql)).values());
            expect(throughInbox).toEqual(folded);
            return folded;
          });
          const always = await withIntake((intake, sql) => {
            for (const items of batches) {
              storeBatch(intake, caller, { items }, NOW, CONFIG);
              foldSessions(sql);
            }
            return comparable(sessionsById(sql, tableOf(sql)).values());
          });
          expect(sometimes).toEqual(always);
        },
      ),
      { numRuns: runs(40) },
    );
  });

  it("closes an open session through the inbox, which the fold then writes", async () => {
    const { open, closedNow, folded } = await withIntake((intake, sql) => {
      storeBatch(intake, caller, { items: [itemOf({ minute: 5, conversation: "c1", ends: false }, 0)] }, NOW, CONFIG);
      expect(tableOf(sql)).toEqual([]); // not folded yet
      const [session] = [
        ...sessionsById(
          sql,
          [...sql.exec<{ session_id: string }>(ALL_IDS)].map((r) => r.session_id),
        ).values(),
      ];
      if (!session) throw new Error("no session");
      const open = openSessionsOf(sql, [session.profileId]).map((s) => s.sessionId);
      const due = session.lastAt + 20 * MINUTE;
      const closedNow = closeSessions(sql, [{ sessionId: session.sessionId, dueAt: due, windowMs: 20 * MINUTE }], due);
      expect(openSessionsOf(sql, [session.profileId])).toEqual([]);
      foldSessions(sql);
      return { open, closedNow, folded: sessionsById(sql, [session.sessionId]).get(session.sessionId) };
    });
    expect(open).toHaveLength(1);
    expect(closedNow.map((s) => [s.status, s.closedBy])).toEqual([["closed", "inactivity"]]);
    expect(folded).toMatchObject({ status: "closed", closedBy: "inactivity", closedAt: NOW - 5 * MINUTE + 20 * MINUTE });
  });
});

describe("handle sightings", () => {
  it("give the seen times of every event, folded or not, wherever folds fall", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ handle: fc.integer({ min: 0, max: 2 }), minute: fc.integer({ min: 1, max: 600 }) }), {
          minLength: 1,
          maxLength: 12,
        }),
        fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
        async (events, folds) => {
          const handles = [0, 1, 2].map((n) => phone(`+1555555071${n}`));
          await withIntake((intake, sql) => {
            events.forEach(({ handle, minute }, index) => {
              const items = [
                message({ idempotency_key: `s-${index}`, handles: [handles[handle]], occurred_at: iso(NOW - minute * MINUTE) }),
              ];
              storeBatch(intake, caller, { items }, NOW, CONFIG);
              if (folds[index]) foldSightings(sql);
              expect(seenTimes()).toEqual(expectedAfter(index + 1));
            });
            function seenTimes() {
              return handles.flatMap((handle, n) => {
                const normalized = normalizeHandle(handle);
                const stored = normalized.ok ? findHandle(sql, normalized.handle) : null;
                if (!stored) return [];
                const root = rootOf(sql, stored.profileId)?.profileId ?? stored.profileId;
                const record = handlesOfRoot(sql, root).find((h) => h.handleId === stored.handleId);
                return [[n, record?.firstSeen, record?.lastSeen]];
              });
            }
            function expectedAfter(count: number) {
              return handles.flatMap((_, n) => {
                const times = events
                  .slice(0, count)
                  .filter((event) => event.handle === n)
                  .map((event) => NOW - event.minute * MINUTE);
                return times.length === 0 ? [] : [[n, Math.min(...times), Math.max(...times)]];
              });
            }
            const expected = expectedAfter(events.length);
            expect(seenTimes()).toEqual(expected);
            foldSightings(sql);
            expect(sql.exec("SELECT 1 FROM handle_sightings").toArray()).toEqual([]);
            expect(seenTimes()).toEqual(expected);
          });
        },
      ),
      { numRuns: runs(30) },
    );
  });
});

describe("session events (migration 0015)", () => {
  it("moves what items_session indexed into session_events: every event of a session, none of an ending", async () => {
    const { before, after } = await withIntake((intake, sql) => {
      const items = [
        itemOf({ minute: 9, conversation: "c1", ends: false }, 0),
        itemOf({ minute: 8, conversation: "c1", ends: false }, 1),
        itemOf({ minute: 7, conversation: "c1", ends: true }, 2),
      ];
      storeBatch(intake, caller, { items }, NOW, CONFIG);
      foldPlacements(sql);
      const read = () => [...sql.exec("SELECT * FROM session_events ORDER BY session_id, occurred_at, seq")];
      const before = read();
      sql.exec("DELETE FROM session_events");
      const copy = migration.split("--> statement-breakpoint").find((statement) => statement.includes("INSERT"));
      sql.exec(copy ?? "");
      return { before, after: read() };
    });
    expect(before).toHaveLength(2);
    expect(after).toEqual(before);
  });
});

describe("what the object remembers of an inbox's keys", () => {
  it("holds through a fold rolled back with its transaction, and after a restart", async () => {
    const stub = env.SPACE.get(env.SPACE.newUniqueId());
    const profileId = await runInDurableObject(stub, (_instance, state) => {
      const sql = state.storage.sql;
      const intake = openIntake(drizzle(state.storage), sql, implicitTransaction(state));
      storeBatch(intake, caller, { items: [itemOf({ minute: 5, conversation: "c1", ends: false }, 0)] }, NOW, CONFIG);
      const [session] = sessionsById(
        sql,
        [...sql.exec<{ session_id: string }>(ALL_IDS)].map((r) => r.session_id),
      ).values();
      if (!session) throw new Error("no session");
      expect(openSessionsOf(sql, [session.profileId])).toHaveLength(1);
      // Inside the transaction the fold empties the inbox and the read remembers it empty; the rollback puts the row back.
      expect(() =>
        state.storage.transactionSync(() => {
          foldSessions(sql);
          expect(openSessionsOf(sql, [session.profileId])).toHaveLength(1);
          sql.exec("DELETE FROM sessions");
          expect(openSessionsOf(sql, [session.profileId])).toHaveLength(0);
          throw new Error("rolled back");
        }),
      ).toThrow("rolled back");
      expect(tableOf(sql)).toEqual([]);
      expect(openSessionsOf(sql, [session.profileId])).toHaveLength(1);
      return session.profileId;
    });
    await runInDurableObject(stub, (_instance, state) => state.abort("restart")).catch(() => undefined);
    const afterRestart = await runInDurableObject(env.SPACE.get(stub.id), (_instance, state) => {
      expect(state.storage.sql.exec("SELECT 1 FROM session_inbox").toArray()).toHaveLength(1);
      return openSessionsOf(state.storage.sql, [profileId]).length;
    });
    expect(afterRestart).toBe(1);
  });
});
