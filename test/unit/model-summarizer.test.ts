import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { MemoryEvent } from "../../src/space/memory/memory-event";
import {
  digestOf,
  MODEL_INPUT_CHARS,
  MODEL_TURNS,
  modelInput,
  type SummaryModel,
  summarizeSession,
} from "../../src/space/memory/model-summarizer";
import { SUMMARY_BUDGET } from "../../src/space/memory/summarizer";
import { memoryEvent as event, memoryEventOf } from "../support/memory-events";
import { runs } from "../support/property-runs";

const MODEL = "@cf/meta/llama-3.3-70b-instruct-fp8-fast";

const say = (speakerRole: MemoryEvent["speakerRole"], text: string) => event({ kind: "message", speakerRole, text });

/** A session of five turns: m1, m3, m5 the customer's, m2 and m4 the agent's. */
function session() {
  return [
    say("customer", "Hi, my order A-1042 has not arrived. We are moving to Lisbon next week."),
    say("human_agent", "Sorry about that, let me check."),
    say("customer", "I work nights, so please call after 6pm."),
    say("human_agent", "It ships tomorrow; I will send the tracking link."),
    say("customer", "Thanks!"),
  ];
}

/** A binding that answers `answer` (or what `answer` does) and records what it was asked. */
function fake(answer: () => Promise<unknown>) {
  const calls: { model: string; inputs: Record<string, unknown>; signal: AbortSignal | undefined }[] = [];
  const binding: SummaryModel = {
    run(model, inputs, options) {
      calls.push({ model, inputs, signal: options?.signal });
      return answer();
    },
  };
  return { binding, calls };
}

const valid = {
  summary: "The customer's order A-1042 was late; it ships tomorrow with a tracking link.",
  requested: "Where order A-1042 is.",
  resolution: "It ships tomorrow; a tracking link follows.",
  highlights: [
    { event_id: "m1", text: "We are moving to Lisbon next week." },
    { event_id: "m3", text: "The customer works nights." },
    { event_id: "m2", text: "Sorry about that, let me check." },
    { event_id: "m99", text: "Not a line." },
  ],
  facts: [
    { key: "Moving To", value: "Lisbon", event_id: "m1" },
    { key: "contact_time", value: "after 6pm", event_id: "3" },
    { key: "agent_mood", value: "sorry", event_id: "m2" },
    { key: "!!!", value: "nothing", event_id: "m1" },
  ],
};

describe("model summarizer: the request", () => {
  it("asks the named model for a JSON schema answer over the session's numbered turns, with the call's signal", async () => {
    const events = session();
    const { binding, calls } = fake(async () => ({ response: valid }));
    await summarizeSession(binding, MODEL, events, 1_000);
    expect(calls).toHaveLength(1);
    const [call] = calls;
    expect(call?.model).toBe(MODEL);
    expect(call?.signal).toBeInstanceOf(AbortSignal);
    const inputs = call?.inputs as {
      messages: { role: string; content: string }[];
      response_format: { type: string; json_schema: { required: string[] } };
      max_tokens: number;
    };
    expect(inputs.response_format.type).toBe("json_schema");
    expect(inputs.response_format.json_schema.required.sort()).toEqual(
      ["facts", "highlights", "requested", "resolution", "summary"].sort(),
    );
    expect(inputs.max_tokens).toBeLessThanOrEqual(600);
    expect(inputs.messages.at(-1)?.content.split("\n")).toEqual([
      "m1 customer: Hi, my order A-1042 has not arrived. We are moving to Lisbon next week.",
      "m2 agent: Sorry about that, let me check.",
      "m3 customer: I work nights, so please call after 6pm.",
      "m4 agent: It ships tomorrow; I will send the tracking link.",
      "m5 customer: Thanks!",
    ]);
  });

  it("sends the latest turns only, within the turn and character bounds", () => {
    const long = Array.from({ length: 100 }, (_, i) =>
      say(i % 2 === 0 ? "customer" : "ai_agent", `turn ${i} ${"x".repeat(200)}`),
    );
    const { transcript } = modelInput(long);
    const lines = transcript.split("\n");
    expect(lines.length).toBeLessThanOrEqual(MODEL_TURNS);
    expect(transcript.length).toBeLessThanOrEqual(MODEL_INPUT_CHARS + MODEL_TURNS * 4);
    expect(lines.at(-1)).toContain("turn 99 ");
    expect(lines[0]).toMatch(/^m1 /);

    const many = Array.from({ length: 100 }, (_, i) => say("customer", `short ${i}`));
    const few = modelInput(many).transcript.split("\n");
    expect(few).toHaveLength(MODEL_TURNS);
    expect(few[0]).toBe(`m1 customer: short ${100 - MODEL_TURNS}`);
  });

  it("cuts a turn longer than the whole budget rather than sending nothing", () => {
    const { transcript } = modelInput([say("customer", "y".repeat(20_000))]);
    expect(transcript.length).toBeLessThanOrEqual(MODEL_INPUT_CHARS + 4);
    expect(transcript.startsWith("m1 customer: yyy")).toBe(true);
  });
});

describe("model summarizer: the answer", () => {
  it("keeps highlights and facts of the customer's messages only, quotes as written, keys in snake case", async () => {
    const events = session();
    const outcome = await summarizeSession(fake(async () => ({ response: valid })).binding, MODEL, events, 1_000);
    expect(outcome).toEqual({
      ok: true,
      digest: {
        summary: valid.summary,
        requested: valid.requested,
        resolution: valid.resolution,
        highlights: [
          { eventId: events[0]?.itemId, text: "We are moving to Lisbon next week." },
          // Not what the customer wrote: the message itself.
          { eventId: events[2]?.itemId, text: "I work nights, so please call after 6pm." },
        ],
        facts: [
          { key: "moving_to", value: "Lisbon", eventId: events[0]?.itemId },
          { key: "contact_time", value: "after 6pm", eventId: events[2]?.itemId },
        ],
      },
    });
  });

  it("cuts a summary longer than a context's 500 characters", async () => {
    const long = `${"The parcel was late and the customer asked twice. ".repeat(12)}It ships tomorrow.`;
    expect(long.length).toBeGreaterThan(600);
    const outcome = await summarizeSession(
      fake(async () => ({ response: { ...valid, summary: long } })).binding,
      MODEL,
      session(),
      1_000,
    );
    if (!outcome.ok) throw new Error("the answer was refused");
    expect(Array.from(outcome.digest.summary).length).toBeLessThanOrEqual(SUMMARY_BUDGET);
    expect(long.startsWith(outcome.digest.summary.replace(/…$/, "").trimEnd())).toBe(true);
  });

  it("reads an answer given as JSON text", async () => {
    const outcome = await summarizeSession(
      fake(async () => ({ response: JSON.stringify(valid) })).binding,
      MODEL,
      session(),
      1_000,
    );
    expect(outcome.ok && outcome.digest.summary).toBe(valid.summary);
  });

  it.each([
    ["text that is not JSON", { response: "Here is the summary: {summary: ..." }, "invalid_json"],
    ["no response at all", { result: valid }, "invalid_json"],
    ["JSON without the fields", { response: { summary: "Late order." } }, "invalid_schema"],
    ["fields of the wrong type", { response: { ...valid, highlights: "m1" } }, "invalid_schema"],
    ["an empty summary", { response: { ...valid, summary: "  " } }, "refusal"],
    ["a refusal", { response: { ...valid, summary: "I'm sorry, but I can't help with that request." } }, "refusal"],
    ["another refusal", { response: JSON.stringify({ ...valid, summary: "I cannot summarize this conversation." }) }, "refusal"],
  ])("fails on %s", async (_, answer, reason) => {
    expect(await summarizeSession(fake(async () => answer).binding, MODEL, session(), 1_000)).toEqual({ ok: false, reason });
  });

  it("fails on an error the binding throws", async () => {
    const outcome = await summarizeSession(
      fake(async () => {
        throw new Error("JSON Mode couldn't be met");
      }).binding,
      MODEL,
      session(),
      1_000,
    );
    expect(outcome).toEqual({ ok: false, reason: "error" });
  });

  it("gives up at its bound on a binding that never answers, and aborts the call's signal", async () => {
    const { binding, calls } = fake(() => new Promise(() => {}));
    const started = Date.now();
    const outcome = await summarizeSession(binding, MODEL, session(), 50);
    expect(outcome).toEqual({ ok: false, reason: "timeout" });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(calls[0]?.signal?.aborted).toBe(true);
  });

  it("asks nothing about a session with nothing to read", async () => {
    const { binding, calls } = fake(async () => ({ response: valid }));
    expect(await summarizeSession(binding, MODEL, [event({ kind: "system_event", speakerRole: "system" })], 1_000)).toEqual({
      ok: false,
      reason: "refusal",
    });
    expect(calls).toHaveLength(0);
  });
});

describe("model summarizer: any answer (property)", () => {
  const text = fc.string({ maxLength: 80 });
  const answerField = fc.oneof(text, fc.constant(null), fc.integer(), fc.array(fc.anything(), { maxLength: 2 }));
  const highlight = fc.record({
    event_id: fc.oneof(
      text,
      fc.nat({ max: 9 }).map((n) => `m${n}`),
    ),
    text,
  });
  const fact = fc.record({
    key: text,
    value: text,
    event_id: fc.oneof(
      text,
      fc.nat({ max: 9 }).map((n) => `m${n}`),
    ),
  });
  const answer = fc.oneof(
    fc.anything(),
    fc.record({ response: fc.oneof(fc.anything(), text) }),
    fc.record({
      response: fc.record(
        {
          summary: fc.oneof(text, answerField),
          requested: answerField,
          resolution: answerField,
          highlights: fc.oneof(fc.array(highlight, { maxLength: 8 }), answerField),
          facts: fc.oneof(fc.array(fact, { maxLength: 12 }), answerField),
        },
        { requiredKeys: [] },
      ),
    }),
  );
  const events = fc.array(memoryEventOf(fc.string({ maxLength: 200 }), fc.constant(null)), { maxLength: 12 });

  it("never throws, and a digest names only the customer's messages it was shown, within its bounds", () => {
    fc.assert(
      fc.property(events, answer, fc.boolean(), (sessionEvents, raw, asText) => {
        const input = modelInput(sessionEvents);
        const wrapped =
          asText && typeof raw === "object" && raw !== null && "response" in raw
            ? { response: JSON.stringify(raw.response) }
            : raw;
        const outcome = digestOf(wrapped, input);
        if (!outcome.ok) return;
        const customers = new Set(
          sessionEvents.filter((e) => e.kind === "message" && e.speakerRole === "customer").map((e) => e.itemId),
        );
        const { digest } = outcome;
        expect(digest.summary.trim()).not.toBe("");
        expect(Array.from(digest.summary).length).toBeLessThanOrEqual(300);
        expect(digest.highlights.length).toBeLessThanOrEqual(5);
        expect(digest.facts.length).toBeLessThanOrEqual(10);
        for (const highlight of digest.highlights) expect(customers.has(highlight.eventId)).toBe(true);
        for (const fact of digest.facts) {
          expect(customers.has(fact.eventId)).toBe(true);
          expect(fact.key).toMatch(/^[a-z0-9]+(_[a-z0-9]+)*$/);
          expect(fact.value).not.toBe("");
        }
      }),
      { numRuns: runs(300) },
    );
  });
});
