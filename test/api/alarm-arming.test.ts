import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { INDEX_STEP_ROWS } from "../../src/space/search/backlog";
import { moveClock, stub } from "../support/memory";
import { batch, call, createSpace, json, message } from "../support/seed";

/**
 * The alarm (src/space/object.ts): requests that come while its rounds run do not set it (each
 * would wait for a storage write, and its answer for that write's commit); the alarm sets itself
 * for the earliest timer when its rounds end, those the requests added included.
 */
describe("the alarm while it runs", () => {
  it("is not set by requests between its rounds, and is set for the earliest timer when they end", async () => {
    const space = await createSpace();
    // The object's time an hour ahead: its timers are due for it, not yet for the runtime's alarm.
    await moveClock(space, 3_600_000);
    // More messages than one index step: the alarm takes several rounds, with requests let in between.
    const items = Array.from({ length: 2 * INDEX_STEP_ROWS + 1 }, () => message());
    for (let at = 0; at < items.length; at += 500) await json(await batch(space, items.slice(at, at + 500)), 200);

    const set = await runInDurableObject(stub(space), (_instance, state) => vi.spyOn(state.storage, "setAlarm"));
    set.mockClear();
    let requests = 0;
    const wait = scheduler.wait.bind(scheduler);
    const between = vi.spyOn(scheduler, "wait").mockImplementation(async (ms, options) => {
      if (new Error().stack?.includes("object.ts")) {
        // A request in the alarm's pause that adds timers (a new session's compile, the suggestions' debounce).
        const phone = `+1555555${String(1000 + requests++).slice(-4)}`;
        const answer = await batch(space, [message({ conversation_id: phone, handles: [{ type: "phone_e164", value: phone }] })]);
        expect(await answer.json()).toMatchObject({ accepted: 1 });
        expect((await call("GET", `/spaces/${space.name}/v1/whoami`, { token: space.key })).status).toBe(200);
      }
      return wait(ms, options);
    });
    let setDuringRounds: number;
    try {
      expect(await runDurableObjectAlarm(stub(space))).toBe(true);
    } finally {
      between.mockRestore();
      setDuringRounds = set.mock.calls.length;
    }
    expect(requests).toBeGreaterThan(0);
    // Only the alarm's own arming at its end.
    expect(setDuringRounds).toBe(1);
    const { alarm, earliest } = await runInDurableObject(stub(space), async (_instance, state) => ({
      alarm: await state.storage.getAlarm(),
      earliest: state.storage.sql.exec<{ due_at: number }>("SELECT min(due_at) AS due_at FROM timers").one().due_at,
    }));
    expect(earliest).not.toBeNull();
    expect(alarm).toBe(earliest);
    set.mockRestore();
  });
});
