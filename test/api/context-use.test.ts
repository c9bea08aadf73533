import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BatchAnswerSchema } from "../../src/contract/batch";
import { type ContextUseReport, ContextUseReportSchema } from "../../src/contract/measurement";
import type { SpaceObject } from "../../src/space/object";
import {
  createSource,
  email,
  expectProblem,
  type Handle,
  identifyItem,
  personToken,
  phone,
  query,
  restartSpaceObject,
} from "../support/identity";
import { fullContext, later, moveClock, stub } from "../support/memory";
import { batch, call, createKey, createSpace, json, message, type Space } from "../support/seed";

/**
 * Context-use measurement (`GET /v1/measurement/context-use`): every agent turn counted once at
 * intake, per UTC day of its `occurred_at` and source, as current, late, unknown or without a
 * stamp, judged against the etags the space answered and when their profile next received items.
 * The object's clock is frozen, so supersession and `injected_at` are placed exactly.
 */

const SECOND = 1_000;
const MINUTE = 60_000;
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();
const dayOf = (ms: number) => iso(ms).slice(0, 10);
const noonOf = (ms: number) => Date.parse(`${dayOf(ms)}T12:00:00.000Z`);

async function accept(space: Space, items: unknown[], key = space.key) {
  const answer = BatchAnswerSchema.parse(await json(await batch(space, items, key), 200));
  expect(answer.errors).toEqual([]);
  return answer;
}

const customer = (handle: Handle, at: number, text = "Where is my order?") =>
  message({ handles: [handle], speaker: { role: "customer" }, occurred_at: iso(at), content: { type: "text", text } });

const agent = (
  handle: Handle,
  at: number,
  stamp: { etag: string; injected_at: number } | null,
  role: "ai_agent" | "human_agent" = "ai_agent",
) =>
  message({
    handles: [handle],
    speaker: { role },
    occurred_at: iso(at),
    content: { type: "text", text: "It ships tomorrow." },
    ...(stamp ? { context_stamp: { etag: stamp.etag, injected_at: iso(stamp.injected_at) } } : {}),
  });

function reportResponse(space: Space, query: Record<string, string> = {}, token = space.key) {
  const search = new URLSearchParams(query).toString();
  return call("GET", `/spaces/${space.name}/v1/measurement/context-use${search ? `?${search}` : ""}`, { token });
}

async function report(space: Space, query: Record<string, string> = {}, token = space.key): Promise<ContextUseReport> {
  return ContextUseReportSchema.parse(await json(await reportResponse(space, query, token), 200));
}

const row = (day: string, sourceId: string, counts: Partial<Record<"current" | "late" | "unknown" | "none", number>>) => {
  const full = { current: 0, late: 0, unknown: 0, none: 0, ...counts };
  return { day, source_id: sourceId, agent_turns: full.current + full.late + full.unknown + full.none, ...full };
};

describe("context use: agent turns counted by their context_stamp, per UTC day and source", () => {
  it("counts current, late, unknown and unstamped turns on the day of their occurred_at", async () => {
    const space = await createSpace();
    const t0 = await moveClock(space, 0);
    const [day1, day2] = [noonOf(t0 - 2 * DAY), noonOf(t0 - DAY)];
    const alice = phone("+15555550301");
    const bob = phone("+15555550302");

    await accept(space, [customer(alice, day1), customer(bob, day1)]);
    const bobs = await fullContext(space, { handle: bob });
    const first = await fullContext(space, { handle: alice });
    // Answered with the context read at t0 and injected then: current. Stored at t0, the reply
    // itself supersedes that context (the profile now has an event it did not hold).
    await accept(space, [agent(alice, day1 + MINUTE, { etag: first.etag, injected_at: t0 })]);

    const t1 = await moveClock(space, MINUTE);
    const read = await fullContext(space, { handle: alice });
    expect(read.etag).not.toBe(first.etag);
    // The customer writes again at t2: the context read at t1 is superseded then.
    const t2 = await moveClock(space, MINUTE);
    await accept(space, [customer(alice, day2, "Any news?")]);
    await moveClock(space, MINUTE);
    await accept(space, [
      // Injected before the new message arrived: still current.
      agent(alice, day2 + MINUTE, { etag: read.etag, injected_at: t1 + 30 * SECOND }),
      // Injected after it arrived, with the older context: late.
      agent(alice, day2 + 2 * MINUTE, { etag: read.etag, injected_at: t2 + 30 * SECOND }),
      // Exactly when it arrived: the newer event was there, so late.
      agent(alice, day2 + 3 * MINUTE, { etag: read.etag, injected_at: t2 }),
      agent(alice, day2 + 4 * MINUTE, { etag: '"never-answered"', injected_at: t2 }),
      // Bob's context in a turn about alice: as unknown as an etag never answered.
      agent(alice, day2 + 5 * MINUTE, { etag: bobs.etag, injected_at: t2 }),
      agent(alice, day2 + 6 * MINUTE, null, "human_agent"),
      agent(bob, day2 + 6 * MINUTE, null),
    ]);

    const answer = await report(space, { from: dayOf(day1), to: dayOf(day2) });
    expect(answer).toEqual({
      from: dayOf(day1),
      to: dayOf(day2),
      days: [
        row(dayOf(day1), space.sourceId, { current: 1 }),
        row(dayOf(day2), space.sourceId, { current: 1, late: 2, unknown: 2, none: 2 }),
      ],
    });
  });

  it("counts a turn on the UTC day its occurred_at falls in, to the millisecond", async () => {
    const space = await createSpace();
    const t0 = await moveClock(space, 0);
    const midnight = Date.parse(`${dayOf(t0 - DAY)}T00:00:00.000Z`);
    const alice = phone("+15555550311");
    await accept(space, [agent(alice, midnight - 1, null), agent(alice, midnight, null), agent(alice, midnight + 1, null)]);
    const answer = await report(space, { from: dayOf(midnight - 1), to: dayOf(midnight) });
    expect(answer.days).toEqual([
      row(dayOf(midnight - 1), space.sourceId, { none: 1 }),
      row(dayOf(midnight), space.sourceId, { none: 2 }),
    ]);
  });

  it("judges an etag answered for a profile merged since against the surviving profile", async () => {
    const space = await createSpace();
    const t0 = await moveClock(space, 0);
    const [older, younger] = [phone("+15555550310"), email("merged@example.test")];
    await accept(space, [customer(older, t0 - 2 * MINUTE)]);
    await accept(space, [customer(younger, t0 - MINUTE)]);
    const { etag } = await fullContext(space, { handle: younger });
    // The merge is a batch that writes to the surviving root: the younger's etag is superseded then.
    const merged = await moveClock(space, MINUTE);
    await accept(space, [identifyItem([older, younger])]);
    expect((await fullContext(space, { handle: younger })).profile_id).toBe(
      (await fullContext(space, { handle: older })).profile_id,
    );
    await accept(space, [
      agent(older, t0, { etag, injected_at: merged - SECOND }),
      agent(older, t0, { etag, injected_at: merged }),
    ]);
    expect((await report(space)).days).toEqual([row(dayOf(t0), space.sourceId, { current: 1, late: 1 })]);
  });

  it("does not count customers' messages, agents' actions or system events", async () => {
    const space = await createSpace();
    const t0 = await moveClock(space, 0);
    const handle = phone("+15555550303");
    await accept(space, [customer(handle, t0 - MINUTE)]);
    const { etag } = await fullContext(space, { handle });
    await accept(space, [
      message({
        handles: [handle],
        kind: "action",
        speaker: { role: "ai_agent" },
        action: { operation: "create", object_type: "order", object_id: "o-1" },
        content: undefined,
        context_stamp: { etag, injected_at: iso(t0) },
        occurred_at: iso(t0),
      }),
      message({
        handles: [handle],
        kind: "system_event",
        canonical_type: "order.created",
        speaker: { role: "system" },
        content: undefined,
        occurred_at: iso(t0),
      }),
      customer(handle, t0, "Thanks"),
      agent(handle, t0, { etag, injected_at: t0 }),
    ]);
    expect((await report(space)).days).toEqual([row(dayOf(t0), space.sourceId, { current: 1 })]);
  });

  it("judges a reply sent in one batch with the customer message it answers against the context before that batch", async () => {
    const space = await createSpace();
    const t0 = await moveClock(space, 0);
    const handle = phone("+15555550304");
    await accept(space, [customer(handle, t0 - 10 * MINUTE)]);
    const { etag } = await fullContext(space, { handle });
    // The client buffered the customer's message and the reply; both arrive now, injected now.
    await accept(space, [
      customer(handle, t0 - MINUTE, "Can I change the address?"),
      agent(handle, t0, { etag, injected_at: t0 }),
    ]);
    // The next turn with the same, now old, context is late.
    await moveClock(space, MINUTE);
    await accept(space, [agent(handle, t0 + MINUTE, { etag, injected_at: t0 + MINUTE })]);
    expect((await report(space)).days).toEqual([row(dayOf(t0), space.sourceId, { current: 1, late: 1 })]);
  });

  it("counts a turn current when its etag, once marked superseded, was answered again", async () => {
    const space = await createSpace();
    const t0 = await moveClock(space, 0);
    const handle = phone("+15555550306");
    await accept(space, [customer(handle, t0 - MINUTE)]);
    await later(space, SECOND);
    const { etag } = await fullContext(space, { handle });
    await later(space, SECOND);
    // Marked as a batch marks it; nothing the context holds changed (rare: any item naming a
    // handle moves its last_seen), so the next read answers the same etag.
    await runInDurableObject(stub(space), (_instance: SpaceObject, state) => {
      state.storage.sql.exec("UPDATE served_contexts SET superseded_at = ? WHERE etag = ?", t0 + 2 * SECOND, etag);
    });
    expect((await fullContext(space, { handle })).etag).toBe(etag);
    await moveClock(space, SECOND);
    await accept(space, [agent(handle, t0 + 3 * SECOND, { etag, injected_at: t0 + 3 * SECOND })]);
    expect((await report(space)).days).toEqual([row(dayOf(t0), space.sourceId, { current: 1 })]);
  });

  it("counts a turn once: a resent batch is all duplicates and changes nothing", async () => {
    const space = await createSpace();
    const t0 = await moveClock(space, 0);
    const handle = phone("+15555550305");
    await accept(space, [customer(handle, t0 - MINUTE)]);
    const { etag } = await fullContext(space, { handle });
    const items = [agent(handle, t0, { etag, injected_at: t0 }), agent(handle, t0, null), customer(handle, t0)];
    expect(await accept(space, items)).toMatchObject({ accepted: 3, duplicates: 0 });
    const before = await report(space);
    expect(before.days).toEqual([row(dayOf(t0), space.sourceId, { current: 1, none: 1 })]);

    expect(await accept(space, items)).toMatchObject({ accepted: 0, duplicates: 3 });
    // A batch of one new turn and one resent: only the new one counts.
    expect(await accept(space, [items[1], agent(handle, t0, null)])).toMatchObject({ accepted: 1, duplicates: 1 });
    expect((await report(space)).days).toEqual([row(dayOf(t0), space.sourceId, { current: 1, none: 2 })]);
  });

  it("writes the etags a read answered at the fold or the next batch, not in the read", async () => {
    const space = await createSpace();
    const t0 = await moveClock(space, 0);
    const [alice, bob, carol] = [phone("+15555550311"), phone("+15555550312"), phone("+15555550313")];
    await accept(space, [customer(alice, t0 - MINUTE), customer(bob, t0 - MINUTE), customer(carol, t0 - MINUTE)]);
    await later(space, 2 * SECOND);
    const served = () => query<{ etag: string }>(space, "SELECT etag FROM served_contexts ORDER BY etag");

    const first = await fullContext(space, { handle: alice });
    expect(await served()).toEqual([]);
    await later(space, 2 * SECOND); // the fold
    expect(await served()).toEqual([{ etag: first.etag }]);

    // Read, then a batch at once: the batch writes the etag before it judges the stamp.
    const second = await fullContext(space, { handle: bob });
    await accept(space, [agent(bob, t0, { etag: second.etag, injected_at: t0 })]);

    // A restart before either forgets the etag: its stamp counts as unknown.
    const third = await fullContext(space, { handle: carol });
    await restartSpaceObject(space);
    await accept(space, [agent(carol, t0, { etag: third.etag, injected_at: t0 })]);
    expect((await served()).map((row) => row.etag).sort()).toEqual([first.etag, second.etag].sort());
    expect((await report(space)).days).toEqual([row(dayOf(t0), space.sourceId, { current: 1, unknown: 1 })]);
  });

  it("does not count turns written with a test key", async () => {
    const space = await createSpace();
    const t0 = await moveClock(space, 0);
    const handle = phone("+15555550306");
    const testKey = await createKey(space.tenant.token, space.sourceId, ["track"], "test");
    await accept(space, [agent(handle, t0, null)], testKey.key);
    await accept(space, [agent(handle, t0, null), agent(handle, t0, null)]);
    expect((await report(space)).days).toEqual([row(dayOf(t0), space.sourceId, { none: 2 })]);
  });
});

describe("GET /v1/measurement/context-use: sources and range", () => {
  it("filters by source_id and keeps days within from and to, ordered by day then source", async () => {
    const space = await createSpace();
    const t0 = await moveClock(space, 0);
    const second = await createSource(space, ["track"]);
    const handle = phone("+15555550307");
    const days = [noonOf(t0 - 3 * DAY), noonOf(t0 - 2 * DAY), noonOf(t0 - DAY)];
    for (const at of days) {
      await accept(space, [agent(handle, at, null)]);
      await accept(space, [agent(handle, at, null), agent(handle, at + MINUTE, null)], second.key);
    }
    const [first, middle, last] = days.map(dayOf) as [string, string, string];
    const pair = (day: string) =>
      [row(day, space.sourceId, { none: 1 }), row(day, second.sourceId, { none: 2 })].sort((a, b) =>
        a.source_id < b.source_id ? -1 : 1,
      );

    expect((await report(space)).days).toEqual([...pair(first), ...pair(middle), ...pair(last)]);
    expect((await report(space, { from: middle, to: last })).days).toEqual([...pair(middle), ...pair(last)]);
    expect((await report(space, { from: middle, to: middle, source_id: second.sourceId })).days).toEqual([
      row(middle, second.sourceId, { none: 2 }),
    ]);
    expect((await report(space, { source_id: space.sourceId })).days).toEqual(
      [first, middle, last].map((day) => row(day, space.sourceId, { none: 1 })),
    );
    expect((await report(space, { source_id: "no-such-source" })).days).toEqual([]);
  });

  it("defaults to the 30 days up to today at the object's clock", async () => {
    const space = await createSpace();
    const t0 = await moveClock(space, 0);
    const handle = phone("+15555550308");
    await accept(space, [agent(handle, t0, null)]);
    const answer = await report(space);
    expect(answer).toMatchObject({ from: dayOf(t0 - 29 * DAY), to: dayOf(t0) });
    expect(answer.days.map((day) => day.day)).toEqual([dayOf(t0)]);
    // A month later today's turn has left the default range, though it is still counted.
    await moveClock(space, 30 * DAY);
    expect((await report(space)).days).toEqual([]);
    expect((await report(space, { from: dayOf(t0), to: dayOf(t0) })).days).toHaveLength(1);
    expect(await report(space, { to: dayOf(t0) })).toMatchObject({ from: dayOf(t0 - 29 * DAY), days: [{ day: dayOf(t0) }] });
  });

  it("answers 90 days and refuses a longer or reversed range, or a date that does not exist, with 422", async () => {
    const space = await createSpace();
    expect((await report(space, { from: "2026-01-01", to: "2026-03-31" })).days).toEqual([]);
    const cases: [Record<string, string>, string][] = [
      [{ from: "2026-01-01", to: "2026-04-01" }, "query: range_over_90_days"],
      [{ from: "2026-03-02", to: "2026-03-01" }, "query: from_after_to"],
      [{ from: "2020-01-01" }, "query: range_over_90_days"],
      [{ from: "2026-02-30" }, "query.from: invalid_format"],
      [{ to: "26-01-01" }, "query.to: invalid_format"],
      [{ since: "2026-01-01" }, "query: unknown_field"],
    ];
    for (const [query, detail] of cases) {
      const problem = await expectProblem(await reportResponse(space, query), 422, "invalid_input");
      expect(problem.detail, JSON.stringify(query)).toBe(detail);
    }
  });
});

describe("GET /v1/measurement/context-use: a key with admin, or a person with analysis or integration", () => {
  it("refuses a key without admin with 403 scope_missing and a person without the roles with 403 forbidden", async () => {
    const space = await createSpace();
    const key = await createKey(space.tenant.token, space.sourceId, ["track", "context", "act", "search", "identify"]);
    await expectProblem(await reportResponse(space, {}, key.key), 403, "scope_missing");
    for (const roles of [["review"], ["security"], ["vendor"]]) {
      await expectProblem(await reportResponse(space, {}, await personToken(space, roles)), 403, "forbidden");
    }
    expect((await reportResponse(space, {}, "")).status).toBe(401);
  });

  it("answers a key with admin, and persons with analysis, integration or admin", async () => {
    const space = await createSpace();
    const t0 = await moveClock(space, 0);
    await accept(space, [agent(phone("+15555550309"), t0, null)]);
    const adminKey = await createKey(space.tenant.token, space.sourceId, ["admin"]);
    const expected = [row(dayOf(t0), space.sourceId, { none: 1 })];
    expect((await report(space, {}, adminKey.key)).days).toEqual(expected);
    for (const roles of [["analysis"], ["integration"]]) {
      expect((await report(space, {}, await personToken(space, roles))).days).toEqual(expected);
    }
    expect((await report(space, {}, space.tenant.token)).days).toEqual(expected);
  });
});
