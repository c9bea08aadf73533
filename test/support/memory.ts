import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { type Context, ContextAnswerSchema, ContextSchema } from "../../src/contract/context";
import type { SpaceObject } from "../../src/space/object";
import { call, message, type Space } from "./seed";

/** What memory and context tests share: context reads parsed with the route's schema, a clock to move. */

export const stub = (space: Space) => env.SPACE.get(env.SPACE.idFromName(space.name));

export function contextResponse(space: Space, body: Record<string, unknown>, token = space.key): Promise<Response> {
  return call("POST", `/spaces/${space.name}/v1/context`, { token, body });
}

/** `POST /v1/context` answered 200, parsed with the route's schema. */
export async function readContext(space: Space, body: Record<string, unknown>, token = space.key) {
  const response = await contextResponse(space, body, token);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`expected 200, got ${response.status}: ${text}`);
  return ContextAnswerSchema.parse(JSON.parse(text));
}

/** A full context (not `unchanged`). */
export async function fullContext(space: Space, body: Record<string, unknown>, token = space.key): Promise<Context> {
  return ContextSchema.parse(await readContext(space, body, token));
}

/** The object's time, set to `at` and frozen there. */
export async function setClock(space: Space, at: number): Promise<void> {
  await runInDurableObject(stub(space), (instance: SpaceObject) => {
    instance.clock = { now: () => at };
  });
}

/**
 * Stops the object's stopwatch, so that slices sized by time are sized by their steps' estimates
 * (as in production, where the clock stands still during work) whatever the machine's load.
 */
export async function stopStopwatch(space: Space): Promise<void> {
  await runInDurableObject(stub(space), (instance: SpaceObject) => {
    instance.stopwatch = () => 0;
  });
}

/** The object's time, moved forward by `ms` from where it stands now. */
export async function moveClock(space: Space, ms: number): Promise<number> {
  return runInDurableObject(stub(space), (instance: SpaceObject) => {
    const at = instance.clock.now() + ms;
    instance.clock = { now: () => at };
    return at;
  });
}

/** Whether a timer is due at the object's time (the alarm may be set for a later one). */
function somethingDue(space: Space): Promise<boolean> {
  return runInDurableObject(stub(space), (instance: SpaceObject, state) => {
    const next = state.storage.sql.exec<{ due_at: number | null }>("SELECT min(due_at) AS due_at FROM timers").one().due_at;
    return next !== null && next <= instance.clock.now();
  });
}

/**
 * Fires the alarm while a timer is due at the object's time; answers how many alarms ran. A timer
 * due with no alarm set means the runtime's own alarm (set for a real time that has passed) is
 * running it: this waits for that alarm rather than read a job's state halfway.
 */
export async function runAlarms(space: Space): Promise<number> {
  let runs = 0;
  const deadline = Date.now() + 30_000;
  while (await somethingDue(space)) {
    if (await runDurableObjectAlarm(stub(space))) runs++;
    else if (Date.now() > deadline) throw new Error("a timer stayed due for 30 s with no alarm set");
    else await scheduler.wait(10);
  }
  return runs;
}

/** Moves time by `ms` and runs what came due. */
export async function later(space: Space, ms: number): Promise<void> {
  await moveClock(space, ms);
  await runAlarms(space);
}

/** A customer's text message of `handle` at `at` (ms). */
export const say = (handle: { type: string; value: string }, at: number, text: string, overrides: Record<string, unknown> = {}) =>
  message({ handles: [handle], occurred_at: new Date(at).toISOString(), content: { type: "text", text }, ...overrides });

/** An AI agent's action on an `order` (unless `block` names another type) of `handle` at `at` (ms). */
export const act = (
  handle: { type: string; value: string },
  at: number,
  block: Record<string, unknown>,
  overrides: Record<string, unknown> = {},
) =>
  message({
    handles: [handle],
    kind: "action",
    speaker: { role: "ai_agent" },
    action: { object_type: "order", ...block },
    content: undefined,
    occurred_at: new Date(at).toISOString(),
    ...overrides,
  });
