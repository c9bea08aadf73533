import { describe, expect, it } from "vitest";
import { BatchAnswerSchema } from "../../src/contract/batch";
import { type HistoryItem, HistoryItemSchema } from "../../src/contract/history";
import { expectProblem, getProfile, type Handle, identifyItem, lookup, personToken, phone, undo } from "../support/identity";
import { act, fullContext, later, moveClock, say } from "../support/memory";
import { batch, call, createKey, createSpace, json, type Space } from "../support/seed";

/**
 * History through the API (DESIGN 3.7): an episode by its `episode_id` and an object by the ids
 * the context answer gives, message text only at the space's `history_text_level`, and every
 * item that is not the customer's answered like one that does not exist.
 */

const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const ORDERS = { act: { operations: ["create", "promise", "update", "cancel"], object_types: ["order"] } };

async function accept(space: Space, items: unknown[], key = space.key): Promise<void> {
  const answer = BatchAnswerSchema.parse(await json(await batch(space, items, key), 200));
  expect(answer.errors).toEqual([]);
}

const openResponse = (space: Space, body: Record<string, unknown>, token = space.key) =>
  call("POST", `/spaces/${space.name}/v1/history/open`, { token, body });

async function open(space: Space, body: Record<string, unknown>, token = space.key): Promise<HistoryItem> {
  return HistoryItemSchema.parse(await json(await openResponse(space, body, token), 200));
}

const itemResponse = (space: Space, id: string, token = space.key) =>
  call("GET", `/spaces/${space.name}/v1/history/items/${encodeURIComponent(id)}`, { token });

async function item(space: Space, id: string, token = space.key): Promise<HistoryItem> {
  return HistoryItemSchema.parse(await json(await itemResponse(space, id, token), 200));
}

async function setConfig(space: Space, values: Record<string, unknown>): Promise<void> {
  await json(
    await call("PUT", `/control/v1/spaces/${space.spaceId}/config`, { token: space.tenant.token, body: { values } }),
    200,
  );
}

/** A customer's conversation with a question, an answer, a fact and a promise about an order, compiled. */
async function conversation(space: Space, handle: Handle) {
  const t0 = await moveClock(space, 0);
  const conv = { conversation_id: "conv-h1" };
  await accept(space, [
    say(handle, t0 - 5 * MINUTE, "Where is my order? My size is 42.", conv),
    act(handle, t0 - 4 * MINUTE, { operation: "promise", object_id: "o-1", due_at: iso(t0 + 60 * MINUTE) }, conv),
    say(handle, t0 - 3 * MINUTE, "It ships tomorrow, I promise.", { ...conv, speaker: { role: "ai_agent" } }),
  ]);
  await later(space, 1_000);
  const context = await fullContext(space, { handle });
  const episode = context.memory.episodes[0];
  if (!episode) throw new Error("no episode");
  return { t0, episode, context };
}

describe("history: an episode by its episode_id", () => {
  it("answers summary, promises, outcome and derived always, and message text only at V2 or above", async () => {
    const space = await createSpace({ source: ORDERS });
    const handle = phone("+15555550401");
    const { episode } = await conversation(space, handle);

    const shown = await open(space, { item_id: episode.episode_id, handle, verification: "V2" });
    expect(shown).toMatchObject({
      id: episode.episode_id,
      kind: "episode",
      summary: episode.summary,
      requested: episode.requested,
      outcome: episode.outcome,
      resolution: episode.resolution,
      derived: episode.derived,
      text_shown: true,
      object: null,
      episode: { conversation_id: "conv-h1", status: "open" },
    });
    expect(shown.promises.map((promise) => [promise.by, promise.what, promise.status])).toEqual([["agent", "order o-1", "open"]]);
    expect(shown.derived.map((derived) => derived.summary)).toContain("size: 42");
    expect(shown.timeline.map((entry) => [entry.kind, entry.speaker_role, entry.text])).toEqual([
      ["message", "customer", "Where is my order? My size is 42."],
      ["action", "ai_agent", null],
      ["message", "ai_agent", "It ships tomorrow, I promise."],
    ]);

    // Below the level: the same item without message text; the default claim is V0.
    for (const body of [{ verification: "V1" }, {}]) {
      const hidden = await open(space, { item_id: episode.episode_id, handle, ...body });
      expect(hidden.text_shown).toBe(false);
      expect(hidden.timeline.map((entry) => entry.text)).toEqual([null, null, null]);
      expect(hidden.timeline.map((entry) => entry.event_id)).toEqual(shown.timeline.map((entry) => entry.event_id));
      expect(hidden.summary).toBe(shown.summary);
    }
    // The GET form has no customer and no verification: it reads as V0.
    const got = await item(space, episode.episode_id);
    expect(got.timeline.map((entry) => entry.text)).toEqual([null, null, null]);
    expect(got.summary).toBe(shown.summary);
  });

  it("follows history_text_level: V0 shows text to the GET form, V3 needs more than an agent key may claim", async () => {
    const space = await createSpace({ source: ORDERS });
    const handle = phone("+15555550402");
    const { episode } = await conversation(space, handle);

    await setConfig(space, { history_text_level: "V0" });
    expect((await item(space, episode.episode_id)).timeline[0]?.text).toBe("Where is my order? My size is 42.");

    await setConfig(space, { history_text_level: "V3" });
    expect((await item(space, episode.episode_id)).text_shown).toBe(false);
    // The key's source is an agent (ceiling V2): its claim of V4 counts as V2.
    const capped = await open(space, { item_id: episode.episode_id, handle, verification: "V4" });
    expect(capped.timeline.map((entry) => entry.text)).toEqual([null, null, null]);
    // A reviewer has no source ceiling.
    const reviewer = await personToken(space, ["review"]);
    const reviewed = await open(space, { item_id: episode.episode_id, handle, verification: "V3" }, reviewer);
    expect(reviewed.timeline[0]?.text).toBe("Where is my order? My size is 42.");
  });

  it("answers a session not compiled yet, compiled on the fly without writing", async () => {
    const space = await createSpace();
    const handle = phone("+15555550403");
    const t0 = await moveClock(space, 0);
    await accept(space, [say(handle, t0 - MINUTE, "My size is 44.", { conversation_id: "conv-h3" })]);
    const [row] = await json<{ data: { episode_id: string }[] }>(
      await call("POST", `/spaces/${space.name}/v1/timeline`, { token: space.key, body: { handle } }),
      200,
    ).then((page) => page.data);
    if (!row) throw new Error("no event");
    const fresh = await open(space, { item_id: row.episode_id, handle, verification: "V2" });
    expect(fresh.derived.map((derived) => derived.summary)).toEqual(["size: 44"]);
    expect(fresh.timeline.map((entry) => entry.text)).toEqual(["My size is 44."]);
    expect((await fullContext(space, { handle })).memory.episodes).toEqual([]);
  });
});

describe("history: an object by the ids context gives", () => {
  it("answers an object's whole history by its open_item_id or any change id, with its promises", async () => {
    const space = await createSpace({ source: ORDERS });
    const handle = phone("+15555550404");
    const t0 = await moveClock(space, 0);
    await accept(space, [
      act(
        handle,
        t0 - 50 * MINUTE,
        { operation: "create", object_id: "o-7", status: "placed", attributes: { total: 30 } },
        { conversation_id: "c-7a" },
      ),
      act(
        handle,
        t0 - 40 * MINUTE,
        { operation: "promise", object_id: "o-7", due_at: iso(t0 + 60 * MINUTE) },
        { conversation_id: "c-7a" },
      ),
      act(
        handle,
        t0 - 5 * MINUTE,
        { operation: "update", object_id: "o-7", status: "packed", attributes: { carrier: "ups" } },
        { conversation_id: "c-7b" },
      ),
    ]);
    await later(space, 1_000);
    const context = await fullContext(space, { handle });
    const openItem = context.memory.open_items.find((entry) => entry.kind === "object");
    if (!openItem) throw new Error("no open object");
    const changeIds = context.memory.episodes.flatMap((episode) =>
      episode.derived.filter((d) => d.type === "object").map((d) => d.id),
    );
    expect(changeIds).toHaveLength(3);

    const history = await open(space, { item_id: openItem.open_item_id, handle, verification: "V2" });
    expect(history).toMatchObject({
      id: openItem.open_item_id,
      kind: "object",
      profile_id: context.profile_id,
      outcome: "unknown",
      resolution: null,
      requested: "create order o-7",
      episode: null,
      object: { object_type: "order", object_id: "o-7", status: "packed", open: true, attributes: { total: 30, carrier: "ups" } },
    });
    expect(history.summary).toContain("order o-7: packed");
    expect(history.object?.changes.map((change) => [change.operation, change.status])).toEqual([
      ["create", "placed"],
      ["promise", null],
      ["update", "packed"],
    ]);
    expect(history.promises.map((promise) => [promise.what, promise.status])).toEqual([["order o-7", "kept"]]);
    expect(history.timeline.map((entry) => entry.occurred_at)).toEqual([
      iso(t0 - 50 * MINUTE),
      iso(t0 - 40 * MINUTE),
      iso(t0 - 5 * MINUTE),
    ]);
    expect(
      history.derived
        .filter((d) => d.type === "object")
        .map((d) => d.id)
        .sort(),
    ).toEqual([...changeIds].sort());
    expect(history.derived.filter((d) => d.type === "open_item").map((d) => d.id)).toEqual([openItem.open_item_id]);

    // Any change id opens the same object, answered under its first change's id.
    for (const id of changeIds) {
      const other = await item(space, id);
      expect(other.id).toBe(openItem.open_item_id);
      expect(other.object?.changes).toEqual(history.object?.changes);
    }
    // Either conversation it changed in matches; another does not.
    expect((await open(space, { item_id: changeIds[0], handle, conversation_id: "c-7b" })).id).toBe(openItem.open_item_id);
    await expectProblem(
      await openResponse(space, { item_id: openItem.open_item_id, handle, conversation_id: "c-other" }),
      404,
      "not_found",
    );

    // Closed by a terminal status: resolved, with its status as the resolution.
    await accept(space, [
      act(handle, t0 - MINUTE, { operation: "update", object_id: "o-7", status: "delivered" }, { conversation_id: "c-7b" }),
    ]);
    await later(space, 1_000);
    const closed = await item(space, openItem.open_item_id);
    expect([closed.outcome, closed.resolution, closed.object?.open]).toEqual(["resolved", "delivered", false]);
    expect(closed.timeline).toHaveLength(4);
  });
});

describe("history: not the customer's is not found", () => {
  it("answers another customer's item, a mismatching conversation_id and an unknown id with the same 404", async () => {
    const space = await createSpace({ source: ORDERS });
    const ana = phone("+15555550405");
    const bo = phone("+15555550406");
    const { episode } = await conversation(space, ana);
    await accept(space, [say(bo, Date.now() - MINUTE, "Hello.")]);

    expect((await open(space, { item_id: episode.episode_id, handle: ana, conversation_id: "conv-h1" })).id).toBe(
      episode.episode_id,
    );
    const problems = [
      await expectProblem(await openResponse(space, { item_id: episode.episode_id, handle: bo }), 404, "not_found"),
      await expectProblem(
        await openResponse(space, { item_id: episode.episode_id, handle: ana, conversation_id: "conv-other" }),
        404,
        "not_found",
      ),
      await expectProblem(await openResponse(space, { item_id: "no-such-item", handle: ana }), 404, "not_found"),
      await expectProblem(
        await openResponse(space, { item_id: episode.episode_id, handle: phone("+15555550407") }),
        404,
        "not_found",
      ),
    ];
    expect(new Set(problems.map((problem) => problem.detail)).size).toBe(1);
    await expectProblem(await itemResponse(space, "no-such-item"), 404, "not_found");
  });

  it("refuses unknown fields, a missing handle and an item_id over 512 characters with 422", async () => {
    const space = await createSpace();
    const handle = phone("+15555550408");
    const refused = [
      { item_id: "x", handle, extra: 1 },
      { item_id: "x" },
      { item_id: "x".repeat(513), handle },
      { item_id: "x", handle, verification: "V9" },
      { item_id: "x", handle: { ...handle, extra: 1 } },
    ];
    for (const body of refused) await expectProblem(await openResponse(space, body), 422, "invalid_input");
    const problem = await expectProblem(await openResponse(space, refused[0] as Record<string, unknown>), 422, "invalid_input");
    expect(problem.detail).toContain("unknown_field");
  });

  it("refuses a key without scope context with 403 scope_missing", async () => {
    const space = await createSpace();
    const { key } = await createKey(space.tenant.token, space.sourceId, ["track", "search", "identify"]);
    await expectProblem(await openResponse(space, { item_id: "x", handle: phone("+15555550409") }, key), 403, "scope_missing");
    await expectProblem(await itemResponse(space, "x", key), 403, "scope_missing");
  });
});

describe("history: an item across merges and their undo", () => {
  it("opens a merged-away profile's episode with the survivor's handle, and after the undo answers it like another customer's", async () => {
    const space = await createSpace({ source: ORDERS });
    const ana = phone("+15555550410");
    const bo = phone("+15555550411");
    const t0 = await moveClock(space, 0);
    // Ana's profile is the older one: Bo's merges into it.
    await accept(space, [say(ana, t0 - 30 * MINUTE, "Hello, this is Ana.", { conversation_id: "conv-ana" })]);
    const anaId = (await lookup(space, ana)).profile_id;
    const { episode } = await conversation(space, bo);
    const boId = (await lookup(space, bo)).profile_id;
    expect(boId).not.toBe(anaId);
    const notTheirs = await expectProblem(
      await openResponse(space, { item_id: episode.episode_id, handle: ana }),
      404,
      "not_found",
    );

    await accept(space, [identifyItem([bo, ana])]);
    await later(space, 1_000);
    const merged = await getProfile(space, boId);
    expect(merged.profile_id).toBe(anaId);
    for (const handle of [ana, bo]) {
      const opened = await open(space, { item_id: episode.episode_id, handle, conversation_id: "conv-h1", verification: "V2" });
      expect([opened.id, opened.kind, opened.profile_id]).toEqual([episode.episode_id, "episode", anaId]);
      expect(opened.timeline.map((entry) => entry.text)).toContain("Where is my order? My size is 42.");
    }
    // The object of Bo's promise, too, by the promise's id.
    const promiseId = episode.derived.find((derived) => derived.type === "promise")?.id ?? "";
    expect((await open(space, { item_id: promiseId, handle: ana })).profile_id).toBe(anaId);

    const reviewer = await personToken(space, ["review"]);
    await undo(space, merged.merges[0]?.merge_id ?? "", reviewer);
    const problems = [
      await expectProblem(await openResponse(space, { item_id: episode.episode_id, handle: ana }), 404, "not_found"),
      await expectProblem(await openResponse(space, { item_id: promiseId, handle: ana }), 404, "not_found"),
      await expectProblem(await openResponse(space, { item_id: "no-such-item", handle: ana }), 404, "not_found"),
    ];
    expect(problems.map((problem) => problem.detail)).toEqual([notTheirs.detail, notTheirs.detail, notTheirs.detail]);
    // Bo's own handle opens it again, under Bo's profile.
    const back = await open(space, { item_id: episode.episode_id, handle: bo });
    expect([back.id, back.profile_id]).toEqual([episode.episode_id, boId]);
    expect((await item(space, episode.episode_id)).profile_id).toBe(boId);
  });
});

describe("history: what each id opens", () => {
  it("opens a fact's and a question's episode by their ids, and an object by a promise's id", async () => {
    const space = await createSpace({ source: ORDERS });
    const handle = phone("+15555550412");
    const t0 = await moveClock(space, 0);
    await accept(space, [
      act(handle, t0 - 20 * MINUTE, { operation: "create", object_id: "o-21", status: "placed" }, { conversation_id: "c-21a" }),
      act(
        handle,
        t0 - 15 * MINUTE,
        { operation: "promise", object_id: "o-21", due_at: iso(t0 + 60 * MINUTE) },
        {
          conversation_id: "c-21a",
        },
      ),
      say(handle, t0 - 5 * MINUTE, "Do you deliver on Sundays? My size is 40.", { conversation_id: "c-21b" }),
    ]);
    await later(space, 1_000);
    const context = await fullContext(space, { handle });
    const episodeOf = (conversationId: string) =>
      context.memory.episodes.find((episode) => episode.conversation_id === conversationId)?.episode_id;
    const questionEpisode = episodeOf("c-21b");
    const fact = context.memory.facts.find((entry) => entry.key === "size");
    const question = context.memory.open_items.find((entry) => entry.kind === "question");
    const object = context.memory.open_items.find((entry) => entry.kind === "object");
    const promise = context.memory.promises[0];
    if (!questionEpisode || !fact || !question || !object || !promise) throw new Error("memory lacks an entry");
    expect(episodeOf("c-21a")).toBeDefined();

    for (const id of [fact.fact_id, question.open_item_id]) {
      const opened = await open(space, { item_id: id, handle, verification: "V2" });
      expect([opened.kind, opened.id, opened.episode?.conversation_id]).toEqual(["episode", questionEpisode, "c-21b"]);
      expect(opened.timeline.map((entry) => entry.text)).toEqual(["Do you deliver on Sundays? My size is 40."]);
    }
    // A promise opens its object, answered under the object's first change (not the promise's).
    expect(promise.promise_id).not.toBe(object.open_item_id);
    const byPromise = await open(space, { item_id: promise.promise_id, handle });
    expect(byPromise).toMatchObject({ kind: "object", id: object.open_item_id, object: { object_id: "o-21", status: "placed" } });
    expect(byPromise.promises.map((entry) => entry.promise_id)).toEqual([promise.promise_id]);
    expect(byPromise).toEqual(await open(space, { item_id: object.open_item_id, handle }));
  });

  it("answers an object whose last status is cancelled or failed unresolved, with that status as its resolution", async () => {
    const space = await createSpace({ source: ORDERS });
    const handle = phone("+15555550413");
    const t0 = await moveClock(space, 0);
    // Each change an update with that status (null: attributes only); the first creates the order.
    const lifecycle = (objectId: string, statuses: (string | null)[]) =>
      statuses.map((status, index) =>
        act(
          handle,
          t0 - (30 - index) * MINUTE,
          {
            operation: index === 0 ? "create" : "update",
            object_id: objectId,
            ...(status === null ? { attributes: { note: "refund sent" } } : { status }),
          },
          { conversation_id: `c-${objectId}` },
        ),
      );
    await accept(space, [
      ...lifecycle("o-cancelled", ["placed", "cancelled"]),
      ...lifecycle("o-failed", ["placed", "failed"]),
      // The last status, not the last change: an update without a status leaves it cancelled.
      ...lifecycle("o-noted", ["placed", "cancelled", null]),
      ...lifecycle("o-retried", ["placed", "failed", "delivered"]),
      ...lifecycle("o-cancel", ["placed"]),
      act(handle, t0 - 20 * MINUTE, { operation: "cancel", object_id: "o-cancel" }, { conversation_id: "c-o-cancel" }),
    ]);
    await later(space, 1_000);
    const context = await fullContext(space, { handle });
    expect(context.memory.open_items.filter((entry) => entry.kind === "object")).toEqual([]);
    const changeOf = (objectId: string) => {
      const change = context.memory.episodes
        .find((episode) => episode.conversation_id === `c-${objectId}`)
        ?.derived.find((derived) => derived.type === "object");
      if (!change) throw new Error(`no change of ${objectId}`);
      return change.id;
    };

    for (const [objectId, outcome, resolution] of [
      ["o-cancelled", "unresolved", "cancelled"],
      ["o-failed", "unresolved", "failed"],
      ["o-noted", "unresolved", "cancelled"],
      ["o-retried", "resolved", "delivered"],
    ] as const) {
      const history = await open(space, { item_id: changeOf(objectId), handle });
      expect([history.kind, history.outcome, history.resolution, history.object?.open, history.object?.status]).toEqual([
        "object",
        outcome,
        resolution,
        false,
        resolution,
      ]);
    }
    // Closed by a cancel that set no status: unresolved, and the cancel is its resolution (its
    // last status, `placed`, would read as where it ended).
    const cancelled = await open(space, { item_id: changeOf("o-cancel"), handle });
    expect([cancelled.outcome, cancelled.resolution, cancelled.object?.open, cancelled.object?.status]).toEqual([
      "unresolved",
      "cancel",
      false,
      "placed",
    ]);
  });
});

describe("history: an item's timeline is its latest 500 events", () => {
  it("answers an episode of 503 events with its latest 500, oldest first", async () => {
    const space = await createSpace();
    const handle = phone("+15555550414");
    const t0 = await moveClock(space, 0);
    const lines = Array.from({ length: 503 }, (_, index) =>
      say(handle, t0 - (600 - index) * 1_000, `Noted, line ${index}.`, { conversation_id: "conv-long" }),
    );
    await accept(space, lines.slice(0, 300));
    await accept(space, lines.slice(300));
    const [row] = await json<{ data: { episode_id: string }[] }>(
      await call("POST", `/spaces/${space.name}/v1/timeline`, { token: space.key, body: { handle, limit: 1 } }),
      200,
    ).then((page) => page.data);
    if (!row) throw new Error("no event");
    const expected = Array.from({ length: 500 }, (_, index) => `Noted, line ${index + 3}.`);
    // Not compiled yet (compiled for the answer), then compiled.
    const fresh = await open(space, { item_id: row.episode_id, handle, verification: "V2" });
    expect(fresh.timeline.map((entry) => entry.text)).toEqual(expected);
    await later(space, 1_000);
    const stored = await open(space, { item_id: row.episode_id, handle, verification: "V2" });
    expect(stored.timeline.map((entry) => entry.text)).toEqual(expected);
    expect(stored.timeline.at(-1)?.occurred_at).toBe(iso(t0 - 98 * 1_000));
  });

  it("answers an object of 502 changes with every change and the latest 500 events", async () => {
    const space = await createSpace({ source: ORDERS });
    const handle = phone("+15555550415");
    const t0 = await moveClock(space, 0);
    const changes = Array.from({ length: 502 }, (_, index) =>
      act(
        handle,
        t0 - (600 - index) * 1_000,
        { operation: index === 0 ? "create" : "update", object_id: "o-long", status: "placed", attributes: { step: index } },
        { conversation_id: "conv-object" },
      ),
    );
    await accept(space, changes.slice(0, 300));
    await accept(space, changes.slice(300));
    await later(space, 1_000);
    const context = await fullContext(space, { handle });
    const openItem = context.memory.open_items.find((entry) => entry.kind === "object");
    if (!openItem) throw new Error("no open object");
    const history = await open(space, { item_id: openItem.open_item_id, handle });
    expect(history.object?.changes).toHaveLength(502);
    expect(history.object?.attributes).toEqual({ step: 501 });
    expect(history.timeline).toHaveLength(500);
    expect(history.timeline.map((entry) => entry.occurred_at)).toEqual(
      Array.from({ length: 500 }, (_, index) => iso(t0 - (600 - index - 2) * 1_000)),
    );
    expect(history.timeline.map((entry) => entry.event_id)).toEqual(
      history.object?.changes.slice(2).map((change) => change.event_id),
    );
  });
});
