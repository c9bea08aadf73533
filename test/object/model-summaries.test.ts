import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { BatchAnswerSchema } from "../../src/contract/batch";
import type { Context } from "../../src/contract/context";
import { queueCompile } from "../../src/space/memory/compiler";
import { modelCalls } from "../../src/space/memory/model-summaries";
import type { SummaryModel } from "../../src/space/memory/model-summarizer";
import type { SpaceObject } from "../../src/space/object";
import { phone } from "../support/identity";
import { fullContext, later, moveClock, stub } from "../support/memory";
import { batch, call, createSpace, json, message, type Space } from "../support/seed";

/**
 * The model path of summaries (docs/api/memory.md "Model summaries") with a fake `AI` binding put
 * on the object: the compile writes the offline episode and never waits for the model; a valid
 * answer replaces its summary, highlights and facts once stored; any failure keeps it.
 */

const MODEL = "@cf/meta/llama-3.3-70b-instruct-fp8-fast";
const MINUTE = 60_000;
/** A whatsapp session closes 20 minutes after its last event. */
const WINDOW = 20 * MINUTE;
const iso = (ms: number) => new Date(ms).toISOString();

type Answer = () => Promise<unknown>;

/** A fake binding: answers what `answer` gives, and records each call's model. */
function fakeModel(answer: Answer) {
  const calls: string[] = [];
  const binding: SummaryModel = {
    run(model) {
      calls.push(model);
      return answer();
    },
  };
  return { binding, calls };
}

async function configure(space: Space, values: Record<string, unknown>): Promise<void> {
  await json(
    await call("PUT", `/control/v1/spaces/${space.spaceId}/config`, { token: space.tenant.token, body: { values } }),
    200,
  );
}

/** A space whose config names the model (unless `config` says otherwise), `binding` on its object (bounded to `timeoutMs`), its clock frozen. */
async function modelSpace(binding: SummaryModel | undefined, config: Record<string, unknown> = {}, timeoutMs = 1_000) {
  const space = await createSpace();
  await configure(space, { summarizer_model: MODEL, ...config });
  await runInDurableObject(stub(space), (instance: SpaceObject) => {
    instance.summaryModel = { binding, timeoutMs };
  });
  const t0 = await moveClock(space, 0);
  return { space, t0 };
}

/** A valid answer about `closedSession`'s turns: m1 and m3 are the customer's, m2 the agent's. */
const VALID = {
  summary: "The order was late and now ships tomorrow.",
  requested: "Where the order is.",
  resolution: "It ships tomorrow.",
  highlights: [
    { event_id: "m1", text: "We are moving to Lisbon next week." },
    { event_id: "m2", text: "Let me check." },
  ],
  facts: [{ key: "Moving To", value: "Lisbon", event_id: "m1" }],
};
const valid = async () => ({ response: VALID });

/**
 * One conversation of a customer (m1, m3 theirs; m2 an agent's), read while open (the offline
 * episode compiled), then closed and compiled: the session is queued and the model step started.
 * Answers the customer's event ids and the offline episode.
 */
async function closedSession(space: Space, t0: number, number: string, conversation = "c-1") {
  const handle = phone(number);
  const say = (at: number, role: string, text: string) =>
    message({
      handles: [handle],
      conversation_id: conversation,
      speaker: { role },
      content: { type: "text", text },
      occurred_at: iso(at),
    });
  const answer = BatchAnswerSchema.parse(
    await json(
      await batch(space, [
        say(t0 - 3 * MINUTE, "customer", "Hi, my order has not arrived. We are moving to Lisbon next week."),
        say(t0 - 2 * MINUTE, "human_agent", "Let me check."),
        say(t0 - MINUTE, "customer", "Thanks, I work nights."),
      ]),
      200,
    ),
  );
  expect(answer.errors).toEqual([]);
  await later(space, 1_000);
  const open = await fullContext(space, { handle });
  const customer = open.live.filter((item) => item.speaker_role === "customer").map((item) => item.event_id);
  await later(space, WINDOW); // the session closes
  await later(space, 1_000); // and is compiled: the model step starts
  const closed = await fullContext(space, { handle });
  return { handle, customer, offline: episodeOf(closed) };
}

function episodeOf(context: Context) {
  const episode = context.memory.episodes[0];
  if (episode === undefined) throw new Error("no episode");
  return episode;
}

/** The model's calls and outcomes today (object time). */
function outcomes(space: Space): Promise<Record<string, number>> {
  return runInDurableObject(stub(space), (instance: SpaceObject, state) =>
    modelCalls(state.storage.sql, iso(instance.clock.now()).slice(0, 10)),
  );
}

/** Waits until `n` calls have an outcome. */
async function settled(space: Space, n = 1): Promise<Record<string, number>> {
  return vi.waitFor(
    async () => {
      const counts = await outcomes(space);
      const done = Object.entries(counts).reduce((sum, [outcome, calls]) => sum + (outcome === "calls" ? 0 : calls), 0);
      if (done < n) throw new Error(`${done} of ${n} calls settled`);
      return counts;
    },
    { timeout: 10_000, interval: 20 },
  );
}

describe("model summaries: a valid answer", () => {
  it("replaces the episode's summary and highlights, and adds its facts with their event's provenance", async () => {
    const { binding, calls } = fakeModel(valid);
    const { space, t0 } = await modelSpace(binding);
    const { handle, customer, offline } = await closedSession(space, t0, "+15555557001");
    expect(offline.summary).not.toContain("ships tomorrow");

    expect(await settled(space)).toEqual({ calls: 1, ok: 1 });
    await later(space, 1_000); // the session is compiled again, with the model's digest
    const context = await fullContext(space, { handle });
    const episode = episodeOf(context);
    expect([episode.summary, episode.requested, episode.resolution]).toEqual([
      "The order was late and now ships tomorrow.",
      "Where the order is.",
      "It ships tomorrow.",
    ]);
    // m2 is the agent's: dropped.
    expect((episode as { highlights?: unknown }).highlights).toEqual([
      { event_id: customer[0], text: "We are moving to Lisbon next week." },
    ]);
    expect(context.memory.facts.map((fact) => [fact.key, fact.value, fact.provenance.event_id])).toContainEqual([
      "moving_to",
      "Lisbon",
      customer[0],
    ]);
    expect(calls).toEqual([MODEL]);

    // Compiled again with the same events: the stored digest, no second call.
    await runInDurableObject(stub(space), (instance: SpaceObject, state) => {
      queueCompile(
        state.storage.sql,
        new Map([[episode.episode_id, { profileId: context.profile_id, events: 0 }]]),
        instance.clock.now(),
      );
    });
    await later(space, 10 * MINUTE);
    expect(calls).toHaveLength(1);
    expect(episodeOf(await fullContext(space, { handle })).summary).toBe("The order was late and now ships tomorrow.");
  });

  it("is not used once the session's events change; the new version is asked about a minute after the last call", async () => {
    let summary = "First digest.";
    const { binding, calls } = fakeModel(async () => ({ response: { ...VALID, summary } }));
    const { space, t0 } = await modelSpace(binding);
    const { handle } = await closedSession(space, t0, "+15555557002");
    await settled(space);
    await later(space, 1_000);
    expect(episodeOf(await fullContext(space, { handle })).summary).toBe("First digest.");

    // A late event joins the closed session: compiled again, offline, and queued.
    summary = "Second digest.";
    const late = message({
      handles: [handle],
      conversation_id: "c-1",
      content: { type: "text", text: "One more thing: the parcel is for my neighbour." },
      occurred_at: iso(t0 - 30_000),
    });
    expect(BatchAnswerSchema.parse(await json(await batch(space, [late]), 200)).errors).toEqual([]);
    await later(space, 1_000);
    const stale = episodeOf(await fullContext(space, { handle }));
    expect(stale.summary).not.toBe("First digest.");
    expect(calls).toHaveLength(1);

    await later(space, MINUTE); // a minute after the first call
    await settled(space, 2);
    await later(space, 1_000);
    expect(calls).toHaveLength(2);
    expect(episodeOf(await fullContext(space, { handle })).summary).toBe("Second digest.");
  });
});

describe("model summaries: any failure keeps the offline episode", () => {
  it.each([
    ["invalid JSON", async () => ({ response: "{ summary: late order" }), "invalid_json"],
    ["an answer outside the schema", async () => ({ response: { ...VALID, facts: "moving_to: Lisbon" } }), "invalid_schema"],
    ["a refusal", async () => ({ response: { ...VALID, summary: "I'm sorry, I can't help with that." } }), "refusal"],
    ["an empty summary", async () => ({ response: { ...VALID, summary: "" } }), "refusal"],
    [
      "an error",
      async () => {
        throw new Error("JSON Mode couldn't be met");
      },
      "error",
    ],
  ] satisfies [string, Answer, string][])(
    "on %s: counted and logged without text, and the version is not asked again",
    async (_, fails, reason) => {
      const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
      const { binding, calls } = fakeModel(fails);
      const { space, t0 } = await modelSpace(binding);
      const { handle, offline } = await closedSession(space, t0, "+15555557003");
      expect(await settled(space)).toEqual({ calls: 1, [reason]: 1 });
      const logged = warn.mock.calls.map((args) => args.join(" ")).join("\n");
      warn.mockRestore();
      expect(logged).toContain(`"reason":"${reason}"`);
      expect(logged).not.toMatch(/Lisbon|order|sorry|summary:/i);
      await later(space, 10 * MINUTE);
      const context = await fullContext(space, { handle });
      expect(episodeOf(context).summary).toBe(offline.summary);
      expect(context.memory.facts.map((fact) => fact.key)).not.toContain("moving_to");
      expect(calls).toHaveLength(1);
    },
  );

  it("on a model that never answers: the compile is not held, the offline episode is read at once, the call gives up at its bound", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const { binding, calls } = fakeModel(() => new Promise(() => {}));
    const { space, t0 } = await modelSpace(binding, {}, 3_000);
    const { handle, offline } = await closedSession(space, t0, "+15555557004");
    // The call is out; the episode was compiled without it, and other sessions compile meanwhile.
    expect(calls).toHaveLength(1);
    expect(offline.status).toBe("closed");
    const other = phone("+15555557005");
    const now = await moveClock(space, 0);
    await json(await batch(space, [message({ handles: [other], conversation_id: "c-2", occurred_at: iso(now) })]), 200);
    await later(space, 1_000);
    const meanwhile = await fullContext(space, { handle: other });
    expect([meanwhile.compiled.pending, meanwhile.memory.episodes.length]).toEqual([0, 1]);
    expect((await outcomes(space)).timeout).toBeUndefined();

    expect(await settled(space)).toEqual({ calls: 1, timeout: 1 });
    warn.mockRestore();
    await later(space, 1_000);
    expect(episodeOf(await fullContext(space, { handle })).summary).toBe(offline.summary);
    expect(calls).toHaveLength(1);
  });
});

describe("model summaries: bounds", () => {
  it("asks nothing where no model is named, or where the binding is absent (npm run dev)", async () => {
    const named = fakeModel(valid);
    const unnamed = await modelSpace(named.binding, { summarizer_model: undefined });
    await closedSession(unnamed.space, unnamed.t0, "+15555557010");
    const unbound = await modelSpace(undefined);
    await closedSession(unbound.space, unbound.t0, "+15555557011");
    for (const space of [unnamed.space, unbound.space]) {
      const queued = await runInDurableObject(
        stub(space),
        (_instance: SpaceObject, state) => state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM model_queue").one().n,
      );
      expect(queued).toBe(0);
      expect(await outcomes(space)).toEqual({});
    }
    expect(named.calls).toHaveLength(0);
  });

  it("keeps two calls in flight at most, and the day's limit", async () => {
    const pending: ((value: unknown) => void)[] = [];
    const { binding, calls } = fakeModel(() => new Promise((resolve) => pending.push(resolve)));
    const { space, t0: created } = await modelSpace(binding, { summarizer_daily_limit: 3 }, 5_000);
    // Calls are counted per UTC day: start an hour into the next one, so that the steps below
    // (a close window and more) stay in one day whatever the time the test runs at.
    const t0 = await moveClock(space, Math.floor(created / 86_400_000 + 1) * 86_400_000 + 3_600_000 - created);
    // Resolved inside the object: its promises belong to it.
    const answerAll = () =>
      runInDurableObject(stub(space), () => {
        for (const resolve of pending.splice(0)) resolve({ response: VALID });
      });
    const handles = ["+15555557020", "+15555557021", "+15555557022", "+15555557023"].map(phone);
    const items = handles.flatMap((handle, i) =>
      [0, 1].map((turn) =>
        message({
          handles: [handle],
          conversation_id: `c-${i}`,
          speaker: { role: turn === 0 ? "customer" : "human_agent" },
          content: { type: "text", text: turn === 0 ? "Where is my order?" : "It ships today." },
          occurred_at: iso(t0 - (2 - turn) * MINUTE),
        }),
      ),
    );
    await json(await batch(space, items), 200);
    await later(space, 1_000);
    await later(space, WINDOW);
    await later(space, 1_000);
    expect(calls).toHaveLength(2);

    await answerAll();
    await settled(space, 2);
    await later(space, 1_000);
    expect(calls).toHaveLength(3); // one more: the day's limit of 3
    await answerAll();
    await settled(space, 3);
    await later(space, MINUTE);
    expect(calls).toHaveLength(3);

    // The next UTC day, the fourth.
    const midnight = Math.floor(t0 / 86_400_000 + 1) * 86_400_000;
    await later(space, midnight - (await moveClock(space, 0)));
    expect(calls).toHaveLength(4);
    await answerAll();
    expect(await settled(space, 1)).toEqual({ calls: 1, ok: 1 });
    await later(space, 1_000);
    const summaries = await Promise.all(handles.map(async (handle) => episodeOf(await fullContext(space, { handle })).summary));
    expect(summaries).toEqual(handles.map(() => VALID.summary));
  });
});
