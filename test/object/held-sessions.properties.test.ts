import { env, runInDurableObject } from "cloudflare:test";
import { drizzle } from "drizzle-orm/durable-sqlite";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Intake, openIntake } from "../../src/space/intake";
import { closeSessions, deleteSessions, foldSessions, openSessionsOf, sessionsById } from "../../src/space/memory/sessions";
import { rowsFromArrays } from "../../src/space/sql-rows";
import { phone } from "../support/identity";
import { TRACK_CALLER as caller, storeBatch } from "../support/intake";
import { runs } from "../support/property-runs";
import { message } from "../support/seed";

/**
 * Sessions held in memory (`held-sessions.ts`) place every event as a read from SQLite would:
 * the same steps (batches cut in chunks, folds, close timers firing, batches rolled back) give the
 * same sessions, and put each event in the same one, as the steps run with nothing held (each
 * batch on a database handle of its own, whose memory starts empty).
 */

const START = Date.UTC(2026, 10, 24, 12, 0, 0);
const MINUTE = 60_000;
const CONFIG = { clock_tolerance_s: 300 };
const CUSTOMERS = [phone("+15555550801"), phone("+15555550802")];
const iso = (ms: number) => new Date(ms).toISOString();

type Event = { minutesAgo: number; conversation: "c1" | "c2" | null; customer: 0 | 1; channel: "whatsapp" | "email" };
type Step =
  | { kind: "batch"; events: Event[]; chunkItems: number }
  | { kind: "rolled back"; events: Event[] }
  | { kind: "fold" }
  | { kind: "close" };

const eventArb: fc.Arbitrary<Event> = fc.record({
  minutesAgo: fc.integer({ min: 0, max: 90 }),
  conversation: fc.constantFrom("c1" as const, "c2" as const, null),
  customer: fc.constantFrom(0 as const, 1 as const),
  channel: fc.constantFrom("whatsapp" as const, "email" as const),
});
const eventsArb = fc.array(eventArb, { minLength: 1, maxLength: 6 });
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant("batch" as const), events: eventsArb, chunkItems: fc.integer({ min: 1, max: 6 }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("rolled back" as const), events: eventsArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("fold" as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("close" as const) }) },
);

/** Each step five minutes after the one before: events come minutes before their step. */
const nowOf = (step: number) => START + step * 5 * MINUTE;

function itemsOf(events: readonly Event[], step: number): Record<string, unknown>[] {
  return events.map((event, index) =>
    message({
      idempotency_key: `k-${step}-${index}`,
      handles: [CUSTOMERS[event.customer]],
      channel: event.channel,
      occurred_at: iso(nowOf(step) - event.minutesAgo * MINUTE),
      ...(event.conversation === null ? { conversation_id: undefined } : { conversation_id: event.conversation }),
    }),
  );
}

function closeDue(sql: SqlStorage, now: number): void {
  const due = sql
    .exec<{ key: string; due_at: number; payload: string }>(
      "DELETE FROM timers WHERE kind = 'session.close' AND due_at <= ? RETURNING key, due_at, payload",
      now,
    )
    .toArray()
    .map((timer) => ({ sessionId: timer.key, dueAt: timer.due_at, windowMs: JSON.parse(timer.payload)?.windowMs ?? null }));
  closeSessions(sql, due, now);
}

/** Every session (without its id) and, per event's key, its session (the same), in one order. */
function outcome(sql: SqlStorage): unknown {
  const ids = [
    ...sql.exec<{ session_id: string }>("SELECT session_id FROM sessions UNION SELECT session_id FROM session_inbox"),
  ].map((row) => row.session_id);
  const sessions = sessionsById(sql, ids);
  const comparable = (id: string | null) => {
    const s = id === null ? undefined : sessions.get(id);
    return s
      ? [s.conversationKey.split(":")[0], s.conversationId, s.channel, s.startedAt, s.lastAt, s.status, s.closedAt, s.closedBy]
      : null;
  };
  const placed = [
    ...sql.exec<{ idempotency_key: string; session_id: string | null }>("SELECT idempotency_key, session_id FROM items"),
  ]
    .map((row) => [row.idempotency_key, comparable(row.session_id)])
    .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
  const sorted = (list: unknown[]) => list.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  const all = sorted(ids.map(comparable));
  const open = [...new Set([...sessions.values()].map((session) => session.profileId))].map((profileId) =>
    sorted(openSessionsOf(sql, [profileId]).map((session) => comparable(session.sessionId))),
  );
  return { all, placed, open: sorted(open) };
}

/** Runs the steps in a fresh object; `fresh` gives each batch a handle of its own (nothing held), and skips the rolled-back ones. */
function run(steps: readonly Step[], fresh: boolean): Promise<unknown> {
  const stub = env.SPACE.get(env.SPACE.newUniqueId());
  return runInDurableObject(stub, (_instance, state) => {
    const db = drizzle(state.storage);
    const shared = rowsFromArrays(state.storage.sql);
    const intakeOn = (sql: SqlStorage): Intake => openIntake(db, sql, (work) => work());
    steps.forEach((step, index) => {
      const now = nowOf(index);
      const sql = fresh ? rowsFromArrays(state.storage.sql) : shared;
      if (step.kind === "batch")
        storeBatch(intakeOn(sql), caller, { items: itemsOf(step.events, index) }, now, CONFIG, step.chunkItems);
      if (step.kind === "rolled back" && !fresh) {
        expect(() =>
          state.storage.transactionSync(() => {
            storeBatch(intakeOn(sql), caller, { items: itemsOf(step.events, index) }, now, CONFIG);
            throw new Error("rolled back");
          }),
        ).toThrow("rolled back");
      }
      if (step.kind === "fold") foldSessions(sql);
      if (step.kind === "close") closeDue(sql, now);
    });
    return outcome(shared);
  });
}

describe("sessions held in memory", () => {
  it("place every event as a read from SQLite does, through folds, closes and rollbacks", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 10 }), async (steps) => {
        expect(await run(steps, false)).toEqual(await run(steps, true));
      }),
      { numRuns: runs(40) },
    );
  });

  it("hold no session that was deleted", async () => {
    const stub = env.SPACE.get(env.SPACE.newUniqueId());
    const sessions = await runInDurableObject(stub, (_instance, state) => {
      const sql = rowsFromArrays(state.storage.sql);
      const intake = openIntake(drizzle(state.storage), sql, (work) => work());
      const send = (key: string, minutesAgo: number) =>
        storeBatch(
          intake,
          caller,
          { items: [message({ idempotency_key: key, handles: [CUSTOMERS[0]], occurred_at: iso(START - minutesAgo * MINUTE) })] },
          START,
          CONFIG,
        );
      send("first", 10);
      foldSessions(sql);
      const [first] = sql.exec<{ session_id: string }>("SELECT session_id FROM sessions").toArray();
      deleteSessions(sql, [first?.session_id ?? ""]);
      send("second", 5);
      foldSessions(sql);
      return sql.exec<{ session_id: string; started_at: number }>("SELECT session_id, started_at FROM sessions").toArray();
    });
    // The second event starts a session of its own: the deleted one is not joined again from memory.
    expect(sessions.map((session) => session.started_at)).toEqual([START - 5 * MINUTE]);
  });
});
