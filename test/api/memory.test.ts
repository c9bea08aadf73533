import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BatchAnswerSchema } from "../../src/contract/batch";
import { type Context, ContextSchema } from "../../src/contract/context";
import { MemoryStatsSchema } from "../../src/edge/data/memory-stats";
import { compileQueueLength, compileSlice } from "../../src/space/memory/compiler";
import type { SpaceObject } from "../../src/space/object";
import { expectProblem, identifyItem, link, phone, query, restartSpaceObject, systemId } from "../support/identity";
import { act, contextResponse, fullContext, later, moveClock, readContext, say, stub } from "../support/memory";
import { batch, call, createKey, createSpace, json, message, OPERATOR_TOKEN, type Space } from "../support/seed";

/**
 * Memory and context through the API (DESIGN 3.6-3.8, 4): sessions placed and closed on the
 * object's clock, memory compiled in `occurred_at` order whatever the arrival order, promises
 * broken by their timer, ETags, `about`, the hot tier under a small budget, and a restart
 * between a batch and its compile. The object's clock is frozen at the start of each test that
 * depends on time, so that nothing comes due but what the test moves it to.
 */

const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const freezeClock = (space: Space) => moveClock(space, 0);

/** A batch answered 200 with every item accepted. */
async function accept(space: Space, items: unknown[], key = space.key): Promise<void> {
  const answer = BatchAnswerSchema.parse(await json(await batch(space, items, key), 200));
  expect(answer.errors).toEqual([]);
}

const systemEvent = (handle: { type: string; value: string }, at: number, attributes: Record<string, unknown>) =>
  message({
    handles: [handle],
    kind: "system_event",
    canonical_type: "customer.updated",
    speaker: { role: "system" },
    attributes,
    content: undefined,
    occurred_at: iso(at),
  });

/** The answer without `as_of`, the one part the ETag does not cover. */
const withoutAsOf = ({ as_of: _asOf, ...rest }: Context) => rest;

describe("memory: compiled in occurred_at order whatever the arrival order", () => {
  it("places events sent newest first in occurred_at order, in live and in the episode", async () => {
    const space = await createSpace();
    const t0 = await freezeClock(space);
    const handle = phone("+15555550201");
    const [bronze, silver, gold] = [
      say(handle, t0 - 3 * MINUTE, "My tier is bronze."),
      say(handle, t0 - 2 * MINUTE, "My tier is silver."),
      say(handle, t0 - 1 * MINUTE, "My tier is gold."),
    ];
    await accept(space, [gold]);
    // Read once, so that the profile is held in the hot tier and the next batches are added to it.
    expect((await fullContext(space, { handle })).live.map((item) => item.text)).toEqual(["My tier is gold."]);
    await accept(space, [silver]);
    await accept(space, [bronze]);

    const live = await fullContext(space, { handle });
    expect(live.live.map((item) => item.text)).toEqual(["My tier is bronze.", "My tier is silver.", "My tier is gold."]);
    expect(live.compiled.pending).toBe(3);

    await later(space, 1_000);
    const compiled = await fullContext(space, { handle });
    expect(compiled.compiled.pending).toBe(0);
    expect(compiled.memory.episodes).toHaveLength(1);
    expect(compiled.memory.episodes[0]?.derived.filter((d) => d.type === "fact").map((d) => d.summary)).toEqual([
      "tier: bronze",
      "tier: silver",
      "tier: gold",
    ]);
    expect(compiled.memory.facts.map((fact) => [fact.key, fact.value, fact.valid_from])).toEqual([
      ["tier", "gold", iso(t0 - MINUTE)],
    ]);
    expect(compiled.live.map((item) => item.occurred_at)).toEqual([iso(t0 - 3 * MINUTE), iso(t0 - 2 * MINUTE), iso(t0 - MINUTE)]);
  });

  it("keeps the newer fact when an older system event is replayed after it", async () => {
    const space = await createSpace();
    const t0 = await freezeClock(space);
    const handle = phone("+15555550202");
    await accept(space, [systemEvent(handle, t0 - 60 * MINUTE, { tier: "platinum" })]);
    await later(space, 1_000);
    const before = await fullContext(space, { handle });
    expect(before.memory.facts.map((fact) => [fact.key, fact.value])).toEqual([["tier", "platinum"]]);

    await accept(space, [systemEvent(handle, t0 - 120 * MINUTE, { tier: "gold" })]);
    await later(space, 1_000);
    const after = await fullContext(space, { handle });
    expect(after.compiled.version).toBeGreaterThan(before.compiled.version);
    expect(after.compiled.pending).toBe(0);
    expect(after.memory.facts.map((fact) => [fact.key, fact.value, fact.valid_from, fact.status])).toEqual([
      ["tier", "platinum", iso(t0 - 60 * MINUTE), "active"],
    ]);
    expect(after.memory.episodes).toHaveLength(2);
  });
});

describe("compile order: a profile a reader waits for goes first", () => {
  it("compiles the sessions of a profile whose context was read with pending events before an older backlog", async () => {
    const space = await createSpace();
    const t0 = await freezeClock(space);
    // A backlog of 60 other customers' sessions, queued first: more events than one slice compiles.
    const backlog = Array.from({ length: 600 }, (_, i) =>
      say(phone(`+1555555${1000 + (i % 60)}`), t0 - MINUTE + i, "hello there", { conversation_id: `other-${i % 60}` }),
    );
    await accept(space, backlog.slice(0, 300));
    await accept(space, backlog.slice(300));
    await moveClock(space, 10);
    const waiting = phone("+15555550420");
    await accept(space, [say(waiting, t0, "My tier is gold.", { conversation_id: "waiting" })]);

    expect((await fullContext(space, { handle: waiting })).compiled.pending).toBe(1);
    const left = await runInDurableObject(stub(space), (instance: SpaceObject, state) => {
      compileSlice(state.storage.sql, instance.clock.now(), () => 0);
      return compileQueueLength(state.storage.sql);
    });
    expect(left).toBeGreaterThan(0);
    const after = await fullContext(space, { handle: waiting });
    expect([after.compiled.pending, after.memory.facts.map((fact) => [fact.key, fact.value])]).toEqual([0, [["tier", "gold"]]]);
  });
});

describe("sessions: conversation aliases point at the first id seen", () => {
  it("keeps one session when a conversation first seen by its own id is later named with it as an alias", async () => {
    const space = await createSpace();
    const t0 = await freezeClock(space);
    const handle = phone("+15555550207");
    const ids = `SELECT session_id, conversation_id FROM sessions UNION SELECT session_id, conversation_id FROM session_inbox`;
    await accept(space, [say(handle, t0, "Hello?", { conversation_id: "wa-thread-7" })]);
    await accept(space, [
      say(handle, t0 + MINUTE, "Still there?", { conversation_id: "crm-case-7", conversation_aliases: ["wa-thread-7"] }),
    ]);
    await accept(space, [say(handle, t0 + 2 * MINUTE, "Thanks.", { conversation_id: "wa-thread-7" })]);
    await accept(space, [say(handle, t0 + 3 * MINUTE, "Bye.", { conversation_id: "crm-case-7" })]);
    expect(await query(space, ids)).toEqual([{ session_id: expect.any(String), conversation_id: "wa-thread-7" }]);
    const live = (await fullContext(space, { handle })).live;
    expect(live.map((item) => [item.text, item.conversation_id])).toEqual([
      ["Hello?", "wa-thread-7"],
      ["Still there?", "crm-case-7"],
      ["Thanks.", "wa-thread-7"],
      ["Bye.", "crm-case-7"],
    ]);
  });

  it("keeps one session within one batch too, under the id named with the aliases", async () => {
    const space = await createSpace();
    const t0 = await freezeClock(space);
    const handle = phone("+15555550208");
    await accept(space, [
      say(handle, t0, "Hello?", { conversation_id: "wa-thread-8" }),
      say(handle, t0 + MINUTE, "Still there?", { conversation_id: "crm-case-8", conversation_aliases: ["wa-thread-8"] }),
      say(handle, t0 + 2 * MINUTE, "Thanks.", { conversation_id: "crm-case-8" }),
    ]);
    await accept(space, [say(handle, t0 + 3 * MINUTE, "Bye.", { conversation_id: "wa-thread-8" })]);
    const sessions = await query(
      space,
      "SELECT session_id, conversation_id FROM sessions UNION SELECT session_id, conversation_id FROM session_inbox",
    );
    expect(sessions).toEqual([{ session_id: expect.any(String), conversation_id: "crm-case-8" }]);
    expect((await fullContext(space, { handle })).live).toHaveLength(4);
  });
});

describe("sessions: closed on time by the inactivity window, at once by conversation.ended", () => {
  it("keeps a whatsapp session open 19 minutes after its last event and closes it by 21", async () => {
    const space = await createSpace();
    const t0 = await freezeClock(space);
    const handle = phone("+15555550203");
    await accept(space, [say(handle, t0, "Where is my parcel?")]);

    await later(space, 19 * MINUTE);
    const open = await fullContext(space, { handle });
    expect(open.live.map((item) => item.text)).toEqual(["Where is my parcel?"]);
    expect(open.memory.episodes.map((episode) => episode.status)).toEqual(["open"]);

    await later(space, 2 * MINUTE);
    const closed = await fullContext(space, { handle });
    expect(closed.live).toEqual([]);

    await later(space, 1_000);
    const compiled = await fullContext(space, { handle });
    expect(compiled.live).toEqual([]);
    expect(compiled.compiled.pending).toBe(0);
    expect(compiled.memory.episodes).toHaveLength(1);
    expect(compiled.memory.episodes[0]).toMatchObject({ status: "closed", ended_at: iso(t0 + 20 * MINUTE) });
  });

  it("keeps a session open past its first close time when a later event moved its end, and closes it at the new end", async () => {
    const space = await createSpace();
    const t0 = await freezeClock(space);
    const handle = phone("+15555550204");
    const conversation = { conversation_id: "wa-moved-end" };
    await accept(space, [say(handle, t0, "Where is my parcel?", conversation)]);
    await later(space, 10 * MINUTE);
    await accept(space, [say(handle, t0 + 10 * MINUTE, "Still waiting.", conversation)]);

    // The timer set when the session opened comes due at 20 minutes: the session stays open.
    await later(space, 11 * MINUTE);
    const open = await fullContext(space, { handle });
    expect(open.live.map((item) => item.text)).toEqual(["Where is my parcel?", "Still waiting."]);

    await later(space, 10 * MINUTE);
    const closed = await fullContext(space, { handle });
    expect(closed.live).toEqual([]);
    await later(space, 1_000);
    const compiled = await fullContext(space, { handle });
    expect(compiled.memory.episodes).toHaveLength(1);
    expect(compiled.memory.episodes[0]).toMatchObject({ status: "closed", ended_at: iso(t0 + 30 * MINUTE) });
  });
  it("closes a session at once on conversation.ended", async () => {
    const space = await createSpace();
    const t0 = await freezeClock(space);
    const handle = phone("+15555550204");
    await accept(space, [say(handle, t0 - MINUTE, "Hello?", { conversation_id: "call-4" })]);
    expect((await fullContext(space, { handle })).live).toHaveLength(1);

    await accept(space, [
      { type: "conversation.ended", idempotency_key: crypto.randomUUID(), conversation_id: "call-4", occurred_at: iso(t0) },
    ]);
    expect((await fullContext(space, { handle })).live).toEqual([]);

    await later(space, 1_000);
    const compiled = await fullContext(space, { handle });
    expect(compiled.live).toEqual([]);
    expect(compiled.memory.episodes).toHaveLength(1);
    expect(compiled.memory.episodes[0]).toMatchObject({ status: "closed", conversation_id: "call-4", ended_at: iso(t0) });
  });

  it("keeps two customers apart when their systems reuse one conversation id", async () => {
    const space = await createSpace();
    const t0 = await freezeClock(space);
    const ana = phone("+15555550231");
    const bo = phone("+15555550232");
    await accept(space, [
      say(ana, t0 - 2 * MINUTE, "Ana here", { conversation_id: "shared-1" }),
      say(bo, t0 - MINUTE, "Bo here", { conversation_id: "shared-1" }),
    ]);
    expect((await fullContext(space, { handle: ana })).live.map((item) => item.text)).toEqual(["Ana here"]);
    expect((await fullContext(space, { handle: bo })).live.map((item) => item.text)).toEqual(["Bo here"]);
    // An end of the conversation closes both customers' sessions in it.
    await accept(space, [
      { type: "conversation.ended", idempotency_key: crypto.randomUUID(), conversation_id: "shared-1", occurred_at: iso(t0) },
    ]);
    expect((await fullContext(space, { handle: ana })).live).toEqual([]);
    expect((await fullContext(space, { handle: bo })).live).toEqual([]);
  });

  it("reopens a session a backfill closed at once when its next event puts its end in the future, and closes it again on time", async () => {
    const space = await createSpace();
    const t0 = await freezeClock(space);
    const handle = phone("+15555550206");
    // The first message is past its window when it arrives: its session starts closed.
    await accept(space, [say(handle, t0 - 25 * MINUTE, "I sent this from the plane.")]);
    expect((await fullContext(space, { handle })).live).toEqual([]);
    // A message 10 minutes ago joins it and moves its end 10 minutes ahead: it is open again.
    await accept(space, [say(handle, t0 - 10 * MINUTE, "Landed now.")]);
    await accept(space, [say(handle, t0, "Where do I collect my bag?")]);
    const open = await fullContext(space, { handle });
    expect(open.live.map((item) => item.text)).toEqual([
      "I sent this from the plane.",
      "Landed now.",
      "Where do I collect my bag?",
    ]);
    await later(space, 1_000);
    const compiledOpen = await fullContext(space, { handle });
    expect(compiledOpen.memory.episodes.map((episode) => episode.status)).toEqual(["open"]);

    // Its close timer, set again when it reopened, closes it 20 minutes after the last message.
    await later(space, 20 * MINUTE);
    await later(space, 1_000);
    const closed = await fullContext(space, { handle });
    expect(closed.live).toEqual([]);
    expect(closed.memory.episodes).toHaveLength(1);
    expect(closed.memory.episodes[0]).toMatchObject({ status: "closed", ended_at: iso(t0 + 20 * MINUTE) });
    expect(await query(space, "SELECT session_id FROM sessions")).toHaveLength(1);
  });

  it("reopens a session closed by inactivity when an event delayed past its close time moves its end ahead", async () => {
    const space = await createSpace();
    const t0 = await freezeClock(space);
    const handle = phone("+15555550207");
    await accept(space, [say(handle, t0, "Is the shop open today?")]);
    await later(space, 20 * MINUTE + 1_000);
    expect((await fullContext(space, { handle })).live).toEqual([]);
    // A retried batch brings a message from 19 minutes in; the customer goes on writing.
    await accept(space, [say(handle, t0 + 19 * MINUTE, "Hello?")]);
    await accept(space, [say(handle, t0 + 20 * MINUTE + 1_000, "Anyone there?")]);
    const open = await fullContext(space, { handle });
    expect(open.live.map((item) => item.text)).toEqual(["Is the shop open today?", "Hello?", "Anyone there?"]);
    // A restart loses nothing of it: the hot tier loads the same session from SQLite.
    await restartSpaceObject(space);
    expect((await fullContext(space, { handle })).live.map((item) => item.text)).toEqual([
      "Is the shop open today?",
      "Hello?",
      "Anyone there?",
    ]);
  });

  it("adds a late transcript to its closed session and compiles that session again", async () => {
    const space = await createSpace();
    const t0 = await freezeClock(space);
    const handle = phone("+15555550205");
    await accept(space, [say(handle, t0 - 2 * MINUTE, "Hi there."), say(handle, t0 - MINUTE, "Anyone?")]);
    await later(space, 21 * MINUTE);
    await later(space, 1_000);
    const before = await fullContext(space, { handle });
    expect(before.live).toEqual([]);
    expect(before.memory.episodes).toHaveLength(1);
    expect(before.memory.episodes[0]?.status).toBe("closed");

    await accept(space, [say(handle, t0 - 90_000, "My size is 42.")]);
    const pending = await fullContext(space, { handle });
    expect(pending.compiled.pending).toBe(1);
    expect(pending.live).toEqual([]);

    await later(space, 1_000);
    const after = await fullContext(space, { handle });
    expect(after.compiled.version).toBeGreaterThan(before.compiled.version);
    expect(after.compiled.pending).toBe(0);
    expect(after.memory.episodes.map((episode) => [episode.episode_id, episode.status])).toEqual([
      [before.memory.episodes[0]?.episode_id, "closed"],
    ]);
    expect(after.memory.episodes[0]?.derived.map((d) => d.summary)).toContain("size: 42");
    expect(after.memory.facts.map((fact) => [fact.key, fact.value])).toEqual([["size", "42"]]);
    expect(await query(space, "SELECT session_id FROM sessions")).toHaveLength(1);
  });
});

describe("promises: broken by their due timer, kept by a change of their object", () => {
  it("breaks a promise once due passes, and keeps one followed in time by an update", async () => {
    const space = await createSpace({
      source: { act: { operations: ["create", "promise", "update", "cancel"], object_types: ["order"] } },
    });
    const t0 = await freezeClock(space);
    const dueAt = t0 + 60 * MINUTE;
    const a = phone("+15555550206");
    // Another order: an object belongs to the profile that first acted on it (identity resolution).
    const b = phone("+15555550207");
    await accept(space, [
      act(
        a,
        t0 - MINUTE,
        { operation: "promise", object_type: "order", object_id: "o-1", due_at: iso(dueAt) },
        {
          conversation_id: "conv-a",
        },
      ),
      act(
        b,
        t0 - MINUTE,
        { operation: "promise", object_type: "order", object_id: "o-2", due_at: iso(dueAt) },
        {
          conversation_id: "conv-b",
        },
      ),
      act(
        b,
        t0 - 30_000,
        { operation: "update", object_type: "order", object_id: "o-2", status: "packed" },
        {
          conversation_id: "conv-b",
        },
      ),
    ]);
    await later(space, 1_000);
    const open = await fullContext(space, { handle: a });
    expect(open.memory.promises.map((promise) => [promise.what, promise.status, promise.due_at])).toEqual([
      ["order o-1", "open", iso(dueAt)],
    ]);
    expect((await fullContext(space, { handle: b })).memory.promises.map((promise) => promise.status)).toEqual(["kept"]);

    await later(space, 60 * MINUTE);
    const broken = await fullContext(space, { handle: a });
    expect(broken.memory.promises.map((promise) => [promise.promise_id, promise.status])).toEqual([
      [open.memory.promises[0]?.promise_id, "broken"],
    ]);
    expect(broken.compiled.version).toBeGreaterThan(open.compiled.version);
    expect((await fullContext(space, { handle: b })).memory.promises.map((promise) => promise.status)).toEqual(["kept"]);
  });
});

describe("objects: open ones in memory.objects and open_items, closed ones gone", () => {
  it("shows an object's latest status and attributes, and closes it by a terminal status in any case, a cancel or a closing system event", async () => {
    const space = await createSpace({
      source: { act: { operations: ["create", "update", "cancel"], object_types: ["order"] } },
    });
    const t0 = await freezeClock(space);
    const handle = phone("+15555550209");
    const change = (at: number, operation: string, id: string, extra: Record<string, unknown> = {}) =>
      act(handle, t0 - 10 * MINUTE + at * 1_000, { operation, object_type: "order", object_id: id, ...extra });
    await accept(space, [
      change(1, "create", "o-open", { status: "packed", attributes: { total: 12.5, items: 2 } }),
      change(2, "update", "o-open", { status: "shipped", attributes: { items: 3 } }),
      change(3, "create", "o-delivered", { status: "packed" }),
      change(4, "update", "o-delivered", { status: "Delivered" }),
      change(5, "create", "o-cancelled", { status: "packed" }),
      change(6, "cancel", "o-cancelled"),
      change(7, "create", "o-completed", { status: "packed" }),
      message({
        handles: [handle],
        kind: "system_event",
        canonical_type: "order.completed",
        object: { object_type: "order", object_id: "o-completed" },
        occurred_at: iso(t0 - 10 * MINUTE + 8_000),
      }),
    ]);
    await later(space, 1_000);
    const context = await fullContext(space, { handle });
    expect(context.memory.objects).toEqual([
      {
        object_type: "order",
        object_id: "o-open",
        status: "shipped",
        attributes: { total: 12.5, items: 3 },
        updated_at: iso(t0 - 10 * MINUTE + 2_000),
      },
    ]);
    expect(context.memory.open_items.map((item) => item.kind)).toEqual(["object"]);
  });
});

describe("context: ETag, known_etag and If-None-Match", () => {
  it("answers unchanged and 304 for the current ETag, which covers all but as_of, and a new one after a message", async () => {
    const space = await createSpace();
    const t0 = await freezeClock(space);
    const handle = phone("+15555550208");
    await accept(space, [say(handle, t0 - MINUTE, "First.")]);
    await later(space, 1_000);
    const first = await fullContext(space, { handle });
    await moveClock(space, 5_000);
    const second = await fullContext(space, { handle });
    expect(second.as_of).not.toBe(first.as_of);
    expect(second.etag).toBe(first.etag);

    expect(await readContext(space, { handle, known_etag: first.etag })).toEqual({ unchanged: true, etag: first.etag });
    const path = `/spaces/${space.name}/v1/profiles/${first.profile_id}/context`;
    const full = await call("GET", path, { token: space.key });
    expect(full.headers.get("etag")).toBe(first.etag);
    expect(withoutAsOf(ContextSchema.parse(await json(full, 200)))).toEqual(withoutAsOf(second));
    const notModified = await call("GET", path, { token: space.key, headers: { "if-none-match": first.etag } });
    expect(notModified.status).toBe(304);
    expect(await notModified.text()).toBe("");

    await accept(space, [say(handle, t0, "Second.")]);
    const changed = await fullContext(space, { handle, known_etag: first.etag });
    expect(changed.etag).not.toBe(first.etag);
    expect(changed.live.map((item) => item.text)).toEqual(["First.", "Second."]);
    const modified = await call("GET", path, { token: space.key, headers: { "if-none-match": first.etag } });
    expect(modified.status).toBe(200);
    expect(ContextSchema.parse(await json(modified)).etag).toBe(changed.etag);
  });

  it("answers a merged-away profile id with its survivor's context", async () => {
    const space = await createSpace();
    const t0 = await freezeClock(space);
    const [older, younger] = [phone("+15555550209"), phone("+15555550210")];
    await accept(space, [say(older, t0 - 2 * MINUTE, "I ordered shoes.")]);
    await accept(space, [say(younger, t0 - MINUTE, "Any news on my shoes?")]);
    const mergedAway = (await fullContext(space, { handle: younger })).profile_id;
    await accept(space, [identifyItem([older, younger])]);
    const survivor = await fullContext(space, { handle: older });
    expect(survivor.profile_id).not.toBe(mergedAway);
    const byOldId = ContextSchema.parse(
      await json(await call("GET", `/spaces/${space.name}/v1/profiles/${mergedAway}/context`, { token: space.key }), 200),
    );
    expect(byOldId.profile_id).toBe(survivor.profile_id);
    expect(byOldId.live.map((item) => item.text)).toEqual(["I ordered shoes.", "Any news on my shoes?"]);
  });
});

describe("context: about an organization the person acts for", () => {
  it("answers about with an active link, and the same 422 without a link or for an unknown organization", async () => {
    const space = await createSpace();
    const person = phone("+15555550209");
    const stranger = phone("+15555550210");
    const account = systemId("acct-9", "crm");
    const created = await link(space, { person: { handle: person }, organization: { handle: account }, kind: "account" });
    await accept(space, [say(stranger, Date.now() - MINUTE, "Hello.")]);

    const linked = await fullContext(space, { handle: person, about: { handle: account } });
    expect(linked.profile_id).toBe(created.person_id);
    expect(linked.about).toMatchObject({
      profile_id: created.organization_id,
      subject_kind: "account",
      link: { link_id: created.link_id, kind: "account", role: null },
    });

    const unlinked = await expectProblem(
      await contextResponse(space, { handle: stranger, about: { handle: account } }),
      422,
      "about_without_link",
    );
    const unknown = await expectProblem(
      await contextResponse(space, { handle: person, about: { handle: systemId("acct-none", "crm") } }),
      422,
      "about_without_link",
    );
    expect([unknown.status, unknown.code, unknown.detail]).toEqual([unlinked.status, unlinked.code, unlinked.detail]);
  });
});

describe("context: a read creates nothing", () => {
  it("answers 404 for an unknown handle without creating a profile", async () => {
    const space = await createSpace();
    await accept(space, [say(phone("+15555550211"), Date.now() - MINUTE, "Hello.")]);
    const count = () => query<{ n: number }>(space, "SELECT count(*) AS n FROM profiles");
    expect(await count()).toEqual([{ n: 1 }]);
    await expectProblem(await contextResponse(space, { handle: phone("+15555550212") }), 404, "not_found");
    expect(await count()).toEqual([{ n: 1 }]);
  });
});

describe("hot tier: a budget, eviction by recency, rebuilt from SQLite", () => {
  it("answers the same context after its profile was evicted, and stays under a 1 MB budget", async () => {
    const space = await createSpace();
    await json(
      await call("PUT", `/control/v1/spaces/${space.spaceId}/config`, {
        token: space.tenant.token,
        body: { values: { hot_tier_budget_mb: 1 } },
      }),
      200,
    );
    const t0 = await freezeClock(space);
    const PROFILES = 200;
    const handleOf = (index: number) => ({ type: "email", value: `hot-${index}@example.com` });
    const text = (index: number, n: number) => `Message ${n} of ${index}. My note is ${"x".repeat(4_000)}`;

    const first = handleOf(0);
    await accept(space, [say(first, t0 - 5 * MINUTE, "Where is my order?", { conversation_id: "hot-0" })]);
    await fullContext(space, { handle: first }); // now held, and kept up to date by the batches below
    const items = [];
    for (let index = 0; index < PROFILES; index++) {
      for (const n of [1, 2]) {
        items.push(say(handleOf(index), t0 - 4 * MINUTE + n * 1_000, text(index, n), { conversation_id: `hot-${index}` }));
      }
    }
    await accept(space, items);
    await later(space, 1_000);

    const before = await fullContext(space, { handle: first });
    expect(before.live).toHaveLength(3);
    expect(before.compiled.pending).toBe(0);
    for (let index = 1; index < PROFILES; index++) {
      expect((await fullContext(space, { handle: handleOf(index) })).live).toHaveLength(2);
    }
    const stats = MemoryStatsSchema.parse(
      await json(await call("GET", `/spaces/${space.name}/v1/ops/memory`, { operator: OPERATOR_TOKEN }), 200),
    );
    expect(stats.hot_tier_budget_bytes).toBe(1024 * 1024);
    // Operators only: the space's own key is refused.
    expect((await call("GET", `/spaces/${space.name}/v1/ops/memory`, { token: space.key })).status).toBe(401);
    expect(stats.hot_tier_bytes).toBeGreaterThan(0);
    expect(stats.hot_tier_bytes).toBeLessThanOrEqual(1024 * 1024);

    const after = await fullContext(space, { handle: first });
    expect(withoutAsOf(after)).toEqual(withoutAsOf(before));
  });

  it("orders events of one time by arrival, held or read again, even from batches of one millisecond", async () => {
    const space = await createSpace();
    const t0 = await freezeClock(space);
    const handle = phone("+15555550208");
    await accept(space, [say(handle, t0 - 3 * MINUTE, "zero")]);
    await fullContext(space, { handle }); // held from here on: the batches below add to it
    await accept(space, [say(handle, t0 - 2 * MINUTE, "one"), say(handle, t0 - MINUTE, "A")]);
    await accept(space, [say(handle, t0 - MINUTE, "B")]);
    await later(space, 1_000); // compiled, so that nothing but the order could change the ETag
    const held = await fullContext(space, { handle });
    expect(held.compiled.pending).toBe(0);
    expect(held.live.map((item) => item.text)).toEqual(["zero", "one", "A", "B"]);
    await restartSpaceObject(space);
    const reloaded = await fullContext(space, { handle });
    expect(reloaded.live.map((item) => item.text)).toEqual(["zero", "one", "A", "B"]);
    expect(reloaded.etag).toBe(held.etag);
  });
});

describe("durability: a restart between a batch and its compile", () => {
  it("compiles after a real restart, and live still holds the message", async () => {
    const space = await createSpace();
    const t0 = await freezeClock(space);
    const handle = phone("+15555550213");
    await accept(space, [say(handle, t0 - MINUTE, "My postcode is 28001.")]);
    expect(await query(space, "SELECT session_id FROM compile_inbox UNION SELECT session_id FROM compile_queue")).toHaveLength(1);
    // Its session is still in the session inbox, not folded: live after the restart reads through it.
    expect(await query(space, "SELECT session_id FROM session_inbox")).toHaveLength(1);
    expect(await query(space, "SELECT session_id FROM sessions")).toHaveLength(0);
    expect(await query(space, "SELECT seq FROM item_placements")).toHaveLength(1);

    await restartSpaceObject(space);
    await later(space, 1_000);
    const compiled = await fullContext(space, { handle });
    expect(compiled.compiled.pending).toBe(0);
    expect(compiled.compiled.version).toBeGreaterThanOrEqual(1);
    expect(compiled.memory.facts.map((fact) => [fact.key, fact.value])).toEqual([["postcode", "28001"]]);
    expect(compiled.live.map((item) => item.text)).toEqual(["My postcode is 28001."]);
  });
});

describe("the session inbox's fold", () => {
  it("comes five seconds after the first state appended, after the other inboxes' second, and survives a restart", async () => {
    const space = await createSpace();
    const t0 = await freezeClock(space);
    const handle = phone("+15555550219");
    await accept(space, [say(handle, t0 - MINUTE, "Is my parcel on its way?")]);
    await later(space, 1_000);
    // The event placements are folded within a second; the session waits in the inbox, read from there.
    expect(await query(space, "SELECT seq FROM item_placements")).toHaveLength(0);
    expect(await query(space, "SELECT session_id FROM session_inbox")).toHaveLength(1);
    expect((await fullContext(space, { handle })).live.map((item) => item.text)).toEqual(["Is my parcel on its way?"]);
    await restartSpaceObject(space);
    await later(space, 5_000); // after a restart the clock is the frozen time, without the moves before it
    expect(await query(space, "SELECT session_id FROM session_inbox")).toHaveLength(0);
    expect(await query(space, "SELECT status FROM sessions")).toEqual([{ status: "open" }]);
    expect((await fullContext(space, { handle })).live.map((item) => item.text)).toEqual(["Is my parcel on its way?"]);
  });
});

describe("context: scope", () => {
  it("refuses a key without scope context with 403 scope_missing", async () => {
    const space = await createSpace();
    const handle = phone("+15555550214");
    await accept(space, [say(handle, Date.now() - MINUTE, "Hello.")]);
    const { key } = await createKey(space.tenant.token, space.sourceId, ["track", "search", "identify"]);
    await expectProblem(await contextResponse(space, { handle }, key), 403, "scope_missing");
    const profileId = (await fullContext(space, { handle })).profile_id;
    await expectProblem(
      await call("GET", `/spaces/${space.name}/v1/profiles/${profileId}/context`, { token: key }),
      403,
      "scope_missing",
    );
  });
});
