import { describe, expect, it } from "vitest";
import { BatchAnswerSchema } from "../../src/contract/batch";
import { phone } from "../support/identity";
import { act, fullContext, later, moveClock, say } from "../support/memory";
import { batch, call, createSpace, json, message, type Space } from "../support/seed";

/**
 * Memory rules of docs/api/memory.md that memory.test.ts does not reach: the windows of each
 * channel and of tasks, a change of `session_windows`, `task.ended`, the caps of `live` and of the
 * lists, and how promises end (cancelled, kept over a cancel in either order, broken stays broken).
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const iso = (ms: number) => new Date(ms).toISOString();

async function accept(space: Space, items: unknown[]): Promise<void> {
  const answer = BatchAnswerSchema.parse(await json(await batch(space, items), 200));
  expect(answer.errors).toEqual([]);
}

const liveTexts = async (space: Space, handle: { type: string; value: string }) =>
  (await fullContext(space, { handle })).live.map((item) => item.text);

describe("session windows: each channel's, a task's, and the space's own", () => {
  const windows: [string | null, number][] = [
    ["voice", 15 * MINUTE],
    ["app", 30 * MINUTE],
    [null, 30 * MINUTE],
    ["email", 72 * HOUR],
    ["ticket", 7 * 24 * HOUR],
    ["crm", 24 * HOUR],
  ];
  for (const [channel, window] of windows) {
    it(`keeps a ${channel ?? "channel-less"} session open until ${window / MINUTE} minutes after its last event`, async () => {
      const space = await createSpace();
      const t0 = await moveClock(space, 0);
      const handle = phone("+15555550301");
      await accept(space, [say(handle, t0, "Hello there.", channel === null ? { channel: undefined } : { channel })]);
      await later(space, window - MINUTE);
      expect(await liveTexts(space, handle)).toEqual(["Hello there."]);
      await later(space, 2 * MINUTE);
      expect(await liveTexts(space, handle)).toEqual([]);
    });
  }

  it("closes a task's session 10 minutes after its last event, or at once on task.ended", async () => {
    const space = await createSpace();
    const t0 = await moveClock(space, 0);
    const quiet = phone("+15555550302");
    const ended = phone("+15555550303");
    await accept(space, [
      say(quiet, t0, "Step one done.", { channel: "app", task_id: "task-quiet" }),
      say(ended, t0, "Step one done.", { channel: "app", task_id: "task-ended" }),
    ]);
    await accept(space, [
      { type: "task.ended", idempotency_key: crypto.randomUUID(), task_id: "task-ended", occurred_at: iso(t0) },
    ]);
    expect(await liveTexts(space, ended)).toEqual([]);
    await later(space, 9 * MINUTE);
    expect(await liveTexts(space, quiet)).toEqual(["Step one done."]);
    await later(space, 2 * MINUTE);
    expect(await liveTexts(space, quiet)).toEqual([]);
    await later(space, 1_000);
    const compiled = await fullContext(space, { handle: ended });
    expect(compiled.memory.episodes.map((episode) => [episode.status, episode.ended_at])).toEqual([["closed", iso(t0)]]);
  });

  it("closes by the window in force when the session opened, and places later events by the new one", async () => {
    const space = await createSpace();
    const t0 = await moveClock(space, 0);
    const handle = phone("+15555550304");
    const conversation = { conversation_id: "wa-window-change" };
    await accept(space, [say(handle, t0, "First.", conversation)]);
    await json(
      await call("PUT", `/control/v1/spaces/${space.spaceId}/config`, {
        token: space.tenant.token,
        body: { values: { session_windows: { whatsapp: 300 } } },
      }),
      200,
    );
    // An event 6 minutes on is past the new 5-minute window: it starts a session beside the open one.
    await later(space, 6 * MINUTE);
    await accept(space, [say(handle, t0 + 6 * MINUTE, "Second.", conversation)]);
    expect(await liveTexts(space, handle)).toEqual(["First.", "Second."]);
    // The first still closes by the 20 minutes it opened with; the second by its 5.
    await later(space, 6 * MINUTE);
    expect(await liveTexts(space, handle)).toEqual(["First."]);
    await later(space, 9 * MINUTE);
    expect(await liveTexts(space, handle)).toEqual([]);
    await later(space, 1_000);
    expect((await fullContext(space, { handle })).memory.episodes).toHaveLength(2);
  });
});

describe("caps: live holds the latest 50, lists the newest 20", () => {
  it("answers the latest 50 events of open sessions in live", async () => {
    const space = await createSpace();
    const t0 = await moveClock(space, 0);
    const handle = phone("+15555550305");
    await accept(
      space,
      Array.from({ length: 60 }, (_, n) => say(handle, t0 - 10 * MINUTE + n * 1_000, `Line ${n}.`)),
    );
    const live = await liveTexts(space, handle);
    expect(live).toHaveLength(50);
    expect(live[0]).toBe("Line 10.");
    expect(live[49]).toBe("Line 59.");
  });

  it("lists the newest 20 open objects and open items", async () => {
    const space = await createSpace({ source: { act: { operations: ["create"], object_types: ["order"] } } });
    const t0 = await moveClock(space, 0);
    const handle = phone("+15555550306");
    await accept(
      space,
      Array.from({ length: 25 }, (_, n) =>
        message({
          handles: [handle],
          kind: "action",
          speaker: { role: "ai_agent" },
          action: { operation: "create", object_type: "order", object_id: `o-${n}`, status: "placed" },
          content: undefined,
          occurred_at: iso(t0 - 30 * MINUTE + n * 1_000),
        }),
      ),
    );
    await later(space, 1_000);
    const { memory } = await fullContext(space, { handle });
    const newest = Array.from({ length: 20 }, (_, n) => `o-${24 - n}`).sort();
    expect(memory.objects.map((object) => object.object_id).sort()).toEqual(newest);
    expect(memory.open_items).toHaveLength(20);
  });
});

describe("promises: cancelled, kept over a cancel in either order, broken stays broken", () => {
  const promiseSpace = () =>
    createSpace({ source: { act: { operations: ["promise", "update", "cancel"], object_types: ["order"] } } });
  const statusOf = async (space: Space, handle: { type: string; value: string }) =>
    (await fullContext(space, { handle })).memory.promises.map((promise) => promise.status);

  it("cancels a promise by a later cancel before it is due", async () => {
    const space = await promiseSpace();
    const t0 = await moveClock(space, 0);
    const handle = phone("+15555550307");
    await accept(space, [
      act(handle, t0 - 2 * MINUTE, { operation: "promise", object_id: "o-1", due_at: iso(t0 + HOUR) }),
      act(handle, t0 - MINUTE, { operation: "cancel", object_id: "o-1" }),
    ]);
    await later(space, 1_000);
    expect(await statusOf(space, handle)).toEqual(["cancelled"]);
  });

  it("keeps a promise that a change kept, whether a cancel came before or after that change", async () => {
    const space = await promiseSpace();
    const t0 = await moveClock(space, 0);
    const before = phone("+15555550308");
    const after = phone("+15555550309");
    const due = iso(t0 + HOUR);
    await accept(space, [
      act(before, t0 - 3 * MINUTE, { operation: "promise", object_id: "o-before", due_at: due }),
      act(before, t0 - 2 * MINUTE, { operation: "cancel", object_id: "o-before" }),
      act(before, t0 - MINUTE, { operation: "update", object_id: "o-before", status: "shipped" }),
      act(after, t0 - 3 * MINUTE, { operation: "promise", object_id: "o-after", due_at: due }),
      act(after, t0 - 2 * MINUTE, { operation: "update", object_id: "o-after", status: "shipped" }),
      act(after, t0 - MINUTE, { operation: "cancel", object_id: "o-after" }),
    ]);
    await later(space, 1_000);
    expect(await statusOf(space, before)).toEqual(["kept"]);
    expect(await statusOf(space, after)).toEqual(["kept"]);
  });

  it("leaves a broken promise broken when a cancel comes after its due time", async () => {
    const space = await promiseSpace();
    const t0 = await moveClock(space, 0);
    const handle = phone("+15555550310");
    await accept(space, [act(handle, t0 - MINUTE, { operation: "promise", object_id: "o-1", due_at: iso(t0 + 10 * MINUTE) })]);
    await later(space, 11 * MINUTE);
    expect(await statusOf(space, handle)).toEqual(["broken"]);
    await accept(space, [act(handle, t0 + 11 * MINUTE, { operation: "cancel", object_id: "o-1" })]);
    await later(space, 1_000);
    expect(await statusOf(space, handle)).toEqual(["broken"]);
  });
});
