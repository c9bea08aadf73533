import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { SpaceObject } from "../../src/space/object";
import { type ErasureJob, step } from "../../src/space/privacy/erasure-steps";
import { requestErasure } from "../../src/space/privacy/erasures";
import { email, identifyItem, notePersonalData, phone } from "../support/identity";
import { later, moveClock, stub } from "../support/memory";
import { batch, createSpace, json, message, type Space } from "../support/seed";

/**
 * Forget finds the subject's rows by index (docs/api/privacy.md "Slices"): its events through
 * its sessions, its other items by the items' partial index by profile, other subjects' items
 * that name its handles through `item_mentions`. So the rows each step reads are the same in a
 * space of 20 other customers and of 200, and every other customer's rows stay exactly as they
 * were; an item of another customer that named the subject's handle loses that handle only.
 */

const SUBJECT_PHONE = "+15555550170";
const SUBJECT_EMAIL = "ymir.erased@example.com";
notePersonalData(SUBJECT_PHONE, SUBJECT_EMAIL);
const otherPhone = (i: number) => `+1555555${String(1000 + i).padStart(4, "0")}`;
const at = (ms: number) => new Date(ms).toISOString();

async function accept(space: Space, items: Record<string, unknown>[]) {
  const answer = await json<{ accepted: number; errors: unknown[] }>(await batch(space, items), 200);
  expect(answer.errors).toEqual([]);
}

/** `others` customers (three messages and an identify each), the subject (two merged profiles, three conversations), one meeting. */
async function spaceWith(others: number): Promise<Space> {
  const space = await createSpace();
  const t0 = (await moveClock(space, 0)) - 3_600_000;
  const items: Record<string, unknown>[] = [];
  for (let i = 0; i < others; i++) {
    for (let n = 0; n < 3; n++) {
      items.push(
        message({
          handles: [phone(otherPhone(i))],
          conversation_id: `other-${i}`,
          occurred_at: at(t0 + i * 10 + n),
          content: { type: "text", text: `order ${n} of customer ${i} is late` },
        }),
      );
    }
    items.push(identifyItem([phone(otherPhone(i)), email(`customer.${i}@example.org`)], { occurred_at: at(t0 + i * 10 + 5) }));
  }
  for (let n = 0; n < 30; n++) {
    items.push(
      message({
        handles: [phone(SUBJECT_PHONE)],
        conversation_id: `subject-${n % 3}`,
        occurred_at: at(t0 + 50_000 + n * 1000),
        content: { type: "text", text: `ymirquest parcel ${n} never came, I will pay tomorrow` },
      }),
    );
  }
  items.push(
    message({
      handles: [email(SUBJECT_EMAIL)],
      channel: "email",
      conversation_id: "subject-mail",
      occurred_at: at(t0 + 90_000),
      content: { type: "text", text: "ymirquest by mail" },
    }),
  );
  for (let from = 0; from < items.length; from += 250) await accept(space, items.slice(from, from + 250));
  await accept(space, [
    identifyItem([phone(SUBJECT_PHONE), email(SUBJECT_EMAIL)], { occurred_at: at(t0 + 95_000) }),
    // Another customer's event that names the subject's phone too: it stays theirs, without that phone.
    message({
      handles: [phone(otherPhone(0)), phone(SUBJECT_PHONE)],
      conversation_id: "other-0",
      occurred_at: at(t0 + 96_000),
      content: { type: "text", text: "calling from my friend's phone" },
    }),
  ]);
  await later(space, 2 * 24 * 3_600_000);
  // Compiled and indexed whole, so that both spaces hold the same of the subject whatever the pacing did.
  for (let round = 0; round < 30 && (await waiting(space)) > 0; round++) await later(space, 60_000);
  expect(await waiting(space)).toBe(0);
  return space;
}

/** Sessions and messages still waiting to be compiled or indexed. */
function waiting(space: Space): Promise<number> {
  return runInDurableObject(
    stub(space),
    (_instance: SpaceObject, state) =>
      state.storage.sql
        .exec<{ n: number }>(
          `SELECT (SELECT count(*) FROM compile_queue) + (SELECT count(*) FROM compile_inbox)
           + (SELECT count(*) FROM search_backlog) AS n`,
        )
        .one().n,
  );
}

/** What the rows of other subjects look like, table by table (the subject's profile ids are `members`). */
function othersRows(sql: SqlStorage, members: readonly string[]): Record<string, string[]> {
  const ids = JSON.stringify(members);
  const rows = (statement: string) =>
    sql
      .exec(statement, ids)
      .toArray()
      .map((row) => JSON.stringify(row))
      .sort();
  const notMember = (column: string) => `${column} NOT IN (SELECT value FROM json_each(?1))`;
  return {
    items: rows(`SELECT * FROM items WHERE type <> 'erased' AND (profile_id IS NULL OR ${notMember("profile_id")})`),
    sessions: rows(`SELECT * FROM sessions WHERE ${notMember("profile_id")}`),
    session_events: rows(
      `SELECT se.* FROM session_events se JOIN sessions s ON s.session_id = se.session_id WHERE ${notMember("s.profile_id")}`,
    ),
    derivations: rows(`SELECT * FROM derivations WHERE ${notMember("profile_id")}`),
    memory_entries: rows(`SELECT * FROM memory_entries WHERE ${notMember("profile_id")}`),
    episodes: rows(`SELECT * FROM episodes WHERE ${notMember("profile_id")}`),
    handles: rows(`SELECT * FROM handles WHERE ${notMember("profile_id")}`),
    profiles: rows(`SELECT * FROM profiles WHERE ${notMember("profile_id")}`),
    search_index: rows(`SELECT rowid, * FROM search_index WHERE ${notMember("profile_id")}`),
    search_turns: rows(
      `SELECT t.* FROM search_turns t JOIN items i ON i.seq = t.seq WHERE i.profile_id IS NULL OR ${notMember("i.profile_id")}`,
    ),
    item_mentions: rows(
      `SELECT m.* FROM item_mentions m JOIN handles h ON h.handle_id = m.handle_id WHERE ${notMember("h.profile_id")}`,
    ),
  };
}

/** Every `SqlStorage.exec` through `sql`, so that the rows its statements read can be summed. */
function counting(sql: SqlStorage): { sql: SqlStorage; reads: () => number } {
  const cursors: SqlStorageCursor<Record<string, SqlStorageValue>>[] = [];
  const wrapped = new Proxy(sql, {
    get(target, property) {
      if (property === "exec") {
        return (query: string, ...bindings: unknown[]) => {
          const cursor = target.exec(query, ...bindings);
          cursors.push(cursor);
          return cursor;
        };
      }
      const value = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return {
    sql: wrapped,
    reads: () => cursors.splice(0).reduce((sum, cursor) => sum + cursor.rowsRead, 0),
  };
}

interface Erased {
  reads: Record<string, number>;
  before: Record<string, string[]>;
  after: Record<string, string[]>;
  meeting: { before: string; after: string };
  left: number;
}

/** Erases the subject step by step in the object, counting the rows each phase reads. */
function eraseCounting(space: Space): Promise<Erased> {
  return runInDurableObject(stub(space), (_instance: SpaceObject, state) => {
    const raw = state.storage.sql;
    const meetingSeq = raw.exec<{ seq: number }>("SELECT seq FROM items WHERE body LIKE '%friend''s phone%'").one().seq;
    const meetingBody = () => raw.exec<{ body: string }>("SELECT body FROM items WHERE seq = ?", meetingSeq).one().body;
    const meeting = meetingBody();
    const started = requestErasure(raw, { handle: phone(SUBJECT_PHONE) }, Date.now());
    const before = othersRows(raw, started.members);
    const { sql, reads } = counting(raw);
    const counted: Record<string, number> = {};
    let job: ErasureJob | null = started.job;
    while (job) {
      const phase = job.phase;
      job = step(sql, job, () => {}).next;
      counted[phase] = (counted[phase] ?? 0) + reads();
    }
    raw.exec("DELETE FROM timers WHERE kind = 'forget.run'");
    const left = raw
      .exec<{ n: number }>(
        `SELECT (SELECT count(*) FROM items WHERE profile_id IN (SELECT value FROM json_each(?1)))
          + (SELECT count(*) FROM sessions WHERE profile_id IN (SELECT value FROM json_each(?1)))
          + (SELECT count(*) FROM derivations WHERE profile_id IN (SELECT value FROM json_each(?1)))
          + (SELECT count(*) FROM memory_entries WHERE profile_id IN (SELECT value FROM json_each(?1)))
          + (SELECT count(*) FROM search_index WHERE profile_id IN (SELECT value FROM json_each(?1))) AS n`,
        JSON.stringify(started.members),
      )
      .one().n;
    return {
      reads: counted,
      before,
      after: othersRows(raw, started.members),
      meeting: { before: meeting, after: meetingBody() },
      left,
    };
  });
}

const INDEXED_PHASES = ["events", "derived", "sessions", "memory", "items", "mentions"];

describe("forget: the subject's rows by index, the others' untouched", () => {
  it("reads as many rows in a space of 200 other customers as in one of 20, and leaves the others' rows as they were", async () => {
    const small = await eraseCounting(await spaceWith(20));
    const large = await eraseCounting(await spaceWith(200));
    for (const erased of [small, large]) {
      expect(erased.left).toBe(0);
      expect(Object.keys(erased.reads)).toEqual(expect.arrayContaining(INDEXED_PHASES));
      // The meeting's item stays its customer's, without the subject's phone.
      const before = JSON.parse(erased.meeting.before) as { handles: { value: string }[] };
      const after = JSON.parse(erased.meeting.after) as { handles: { value: string }[] };
      expect(after).toEqual({ ...before, handles: before.handles.filter((handle) => handle.value !== SUBJECT_PHONE) });
      // Every other row of the others is as it was (the meeting's body aside), and their mention notes too.
      const { items: itemsBefore, ...restBefore } = erased.before;
      const { items: itemsAfter, ...restAfter } = erased.after;
      expect(restAfter).toEqual(restBefore);
      const withoutMeeting = (rows: string[] = []) => rows.filter((row) => !row.includes("friend's phone"));
      expect(withoutMeeting(itemsAfter)).toEqual(withoutMeeting(itemsBefore));
      expect(withoutMeeting(itemsBefore).length).toBe((itemsBefore?.length ?? 0) - 1);
    }
    expect(large.before.items?.length).toBeGreaterThan(5 * (small.before.items?.length ?? 0));
    // The same rows, give or take a row at a chunk's edge (seen once, under load, in `events`): a
    // phase that read the space would read hundreds more in the space of 200.
    for (const phase of INDEXED_PHASES) {
      expect(Math.abs((large.reads[phase] ?? 0) - (small.reads[phase] ?? 0)), phase).toBeLessThanOrEqual(2);
    }
    expect(small.reads.mentions).toBeGreaterThan(0);
  });

  it("notes at intake only the items that name another profile's handle", async () => {
    const space = await createSpace();
    await accept(space, [
      message({ handles: [phone("+15555550180")] }),
      message({ handles: [phone("+15555550181")] }),
      message({ handles: [phone("+15555550180"), email("kept.together@example.org")] }),
    ]);
    await accept(space, [message({ handles: [phone("+15555550180"), phone("+15555550181")] })]);
    const notes = await runInDurableObject(stub(space), (_instance: SpaceObject, state) =>
      state.storage.sql
        .exec<{ value: string; body: string }>(
          "SELECT h.value, i.body FROM item_mentions m JOIN handles h ON h.handle_id = m.handle_id JOIN items i ON i.seq = m.seq",
        )
        .toArray(),
    );
    expect(notes.map((note) => note.value)).toEqual(["+15555550181"]);
    expect(notes[0]?.body).toContain("+15555550180");
  });
});
