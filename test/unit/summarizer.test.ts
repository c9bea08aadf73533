import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { MemoryEvent } from "../../src/space/memory/memory-event";
import { extractiveSummarizer } from "../../src/space/memory/summarizer";
import { memoryEvent as event, memoryEventOf } from "../support/memory-events";

const say = (speakerRole: MemoryEvent["speakerRole"], text: string, channel = "chat") =>
  event({ kind: "message", speakerRole, text, channel });

const summarize = (events: MemoryEvent[]) => extractiveSummarizer.summarize(events);

const codePoints = (text: string) => Array.from(text).length;

describe("summarizer: what was requested", () => {
  it("is the first question of the first customer message", () => {
    const digest = summarize([
      say("customer", "Hello there. Where is my order? It was due Monday."),
      say("customer", "Can you help?"),
    ]);
    expect(digest.requested).toBe("Where is my order?");
  });

  it.each([
    ["I want a refund", "Hi. I want a refund for the lamp."],
    ["I need", "Good morning. I need a new invoice."],
    ["I'd like", "Hi! I'd like to change the delivery date."],
    ["I’d like (typographic apostrophe)", "Hi! I’d like to change the delivery date."],
    ["can you", "Hi. Can you resend the receipt."],
    ["could you", "Hi. Could you resend the receipt."],
    ["please", "Hi. Resend the receipt please."],
  ])("is a request phrased with %s", (_, text) => {
    expect(summarize([say("customer", text)]).requested).toBe(text.split(/(?<=[.!?])\s+/)[1]);
  });

  it("is the first sentence when no sentence asks for anything", () => {
    expect(summarize([say("customer", "My parcel arrived damaged. The box was wet.")]).requested).toBe(
      "My parcel arrived damaged.",
    );
  });

  it("comes from the customer only, and from their first message with text", () => {
    const digest = summarize([
      say("ai_agent", "Can I help you?"),
      say("customer", "   "),
      event({ kind: "message", speakerRole: "customer", text: null }),
      say("customer", "The app crashes.\nCould you check?"),
      say("customer", "I need a refund."),
    ]);
    expect(digest.requested).toBe("Could you check?");
  });

  it("is null when the customer wrote nothing", () => {
    expect(summarize([say("ai_agent", "Can I help you?")]).requested).toBeNull();
  });
});

describe("summarizer: the resolution", () => {
  it("is the last agent sentence after the last customer message", () => {
    const digest = summarize([
      say("customer", "Where is my order?"),
      say("ai_agent", "Let me check. It ships tomorrow."),
      say("customer", "Thanks, and the invoice?"),
      say("human_agent", "I have sent it. Anything else?"),
      event({ kind: "system_event", speakerRole: "system", canonicalType: "ticket.closed", text: null }),
    ]);
    expect(digest.resolution).toBe("Anything else?");
  });

  it("is null when the customer wrote last", () => {
    expect(summarize([say("ai_agent", "Hello."), say("customer", "Hi, where is my order?")]).resolution).toBeNull();
  });

  it("ignores system messages", () => {
    expect(summarize([say("customer", "Help?"), say("system", "Session closed.")]).resolution).toBeNull();
  });

  it("is the agents' last sentence when the customer never wrote", () => {
    expect(summarize([say("ai_agent", "Your order shipped. Tracking is attached.")]).resolution).toBe("Tracking is attached.");
  });
});

describe("summarizer: the summary", () => {
  it("says there is nothing when there are no events", () => {
    expect(summarize([])).toEqual({ summary: "No messages.", requested: null, resolution: null, searchable: "" });
  });

  it("combines request, channels, counts by role, events and resolution, in that order", () => {
    const digest = summarize([
      say("customer", "Can you change my delivery address?", "chat"),
      say("ai_agent", "Sure, what is the new one?", "chat"),
      say("customer", "12 Main St.", "email"),
      event({ kind: "system_event", channel: null, speakerRole: "system", canonicalType: "order.updated" }),
      event({
        kind: "action",
        channel: "chat",
        speakerRole: "ai_agent",
        action: { operation: "update", objectType: "order", objectId: "o1", status: null, dueAt: null, attributes: null },
      }),
      event({ kind: "system_event", channel: null, speakerRole: "system", canonicalType: "order.updated" }),
      say("human_agent", "Done, the address is changed.", "email"),
    ]);
    expect(digest.summary).toBe(
      "Requested: Can you change my delivery address? Via chat, email. 4 messages: 2 customer, 1 AI agent, 1 human agent. " +
        "Events: order.updated, update order. Resolution: Done, the address is changed.",
    );
    // What search finds it by: the content, without the channels and counts every episode has.
    expect(digest.searchable).toBe(
      "Can you change my delivery address? order.updated, update order. Done, the address is changed.",
    );
  });

  it("counts messages without text and without a speaker", () => {
    const digest = summarize([event({ kind: "message", speakerRole: null, text: null, channel: null })]);
    expect(digest.summary).toBe("1 message: 1 unattributed.");
  });

  it("says there are no messages when only systems spoke", () => {
    const digest = summarize([event({ kind: "system_event", canonicalType: " order.\nshipped ", channel: "webhook" })]);
    expect(digest.summary).toBe("Via webhook. No messages. Events: order. shipped.");
  });
});

describe("summarizer: lengths", () => {
  it("collapses whitespace and trims", () => {
    expect(summarize([say("customer", "  Where\t is   my\u00a0order ?  ")]).requested).toBe("Where is my order ?");
  });

  it("cuts at a word boundary with an ellipsis", () => {
    const requested = summarize([say("customer", `Where ${"is ".repeat(100)}my order?`)]).requested ?? "";
    expect(codePoints(requested)).toBeLessThanOrEqual(200);
    expect(requested.endsWith(" is…")).toBe(true);
    const summary = summarize([say("customer", "Where is it?"), say("ai_agent", `Yes ${"word ".repeat(100)}`)]).summary;
    expect(codePoints(summary)).toBeLessThanOrEqual(280);
    expect(summary).toMatch(/ word…$/);
  });

  it("cuts a word longer than the limit, never inside a surrogate pair", () => {
    const requested = summarize([say("customer", "😀".repeat(300))]).requested ?? "";
    expect(requested).toBe(`${"😀".repeat(199)}…`);
  });
});

const text = fc.oneof(
  fc.string({ unit: "binary", maxLength: 400 }),
  fc
    .array(
      fc.constantFrom("Where is my order?", "I need help.", "please", "Thanks!", "😀", " ", "\n", "word", "x".repeat(250), "."),
      { maxLength: 30 },
    )
    .map((words) => words.join(" ")),
);

const attributes = fc.option(fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.double(), fc.boolean(), fc.constant(null))));

const memoryEvent = memoryEventOf(text, attributes);

describe("summarizer: properties over any events", () => {
  it("never throws, is deterministic and keeps its bounds", () => {
    fc.assert(
      fc.property(fc.array(memoryEvent, { maxLength: 12 }), (events) => {
        const digest = summarize(events);
        expect(summarize(events)).toEqual(digest);
        expect(codePoints(digest.summary)).toBeLessThanOrEqual(280);
        expect(digest.summary).not.toBe("");
        for (const line of [digest.summary, digest.requested, digest.resolution]) {
          if (line === null) continue;
          expect(line).toBe(line.trim());
          expect(line).not.toMatch(/\s\s/);
        }
        for (const line of [digest.requested, digest.resolution]) {
          if (line !== null) expect(codePoints(line)).toBeLessThanOrEqual(200);
        }
      }),
    );
  });
});
