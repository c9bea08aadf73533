import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { COMPILER_PARTS } from "../../src/space/memory/compiler";
import { compileSession } from "../../src/space/memory/derivation";
import { MAX_HIGHLIGHTS } from "../../src/space/memory/highlights";
import type { MemoryEvent } from "../../src/space/memory/memory-event";
import { EMPTY_VOCABULARY, extractiveSummarizer, SUMMARY_BUDGET, type Vocabulary } from "../../src/space/memory/summarizer";
import { memoryEvent as event, memoryEventOf } from "../support/memory-events";

const say = (speakerRole: MemoryEvent["speakerRole"], text: string, channel = "chat") =>
  event({ kind: "message", speakerRole, text, channel });

const summarize = (events: MemoryEvent[], vocabulary: Vocabulary = EMPTY_VOCABULARY) =>
  extractiveSummarizer.summarize(events, vocabulary);

const codePoints = (text: string) => Array.from(text).length;

describe("summarizer: what was requested", () => {
  it("is the customer's first sentence that asks something about the matter", () => {
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
  ])("is a request phrased with %s, never the greeting before it", (_, text) => {
    expect(summarize([say("customer", text)]).requested).toBe(text.split(/(?<=[.!?])\s+/)[1]);
  });

  it("is never small talk: a question about nothing is skipped", () => {
    const digest = summarize([say("customer", "hi, how are you?"), say("customer", "where is my order A-1042")]);
    expect(digest.requested).toBe("where is my order A-1042");
  });

  it("is the first sentence with content words when no sentence asks for anything", () => {
    expect(summarize([say("customer", "My parcel arrived damaged. The box was wet.")]).requested).toBe(
      "My parcel arrived damaged.",
    );
  });

  it("comes from the customer only, from the first of their messages that asks, with what it is about", () => {
    const digest = summarize([
      say("ai_agent", "Can I help you with your order?"),
      say("customer", "   "),
      event({ kind: "message", speakerRole: "customer", text: null }),
      say("customer", "The app crashes.\nCould you check?"),
      say("customer", "I need a refund."),
    ]);
    // "Could you check?" names nothing itself: the sentence before it says what.
    expect(digest.requested).toBe("The app crashes. Could you check?");
  });

  it("is null when the customer wrote nothing", () => {
    expect(summarize([say("ai_agent", "Can I help you?")]).requested).toBeNull();
  });
});

describe("summarizer: the resolution", () => {
  it("is the agents' last substantive sentence after the customer's last request, not 'anything else?'", () => {
    const digest = summarize([
      say("customer", "Where is my order?"),
      say("ai_agent", "Let me check. It ships tomorrow."),
      say("customer", "Thanks, and the invoice?"),
      say("human_agent", "I have sent it to your email. Anything else?"),
      event({ kind: "system_event", speakerRole: "system", canonicalType: "ticket.closed", text: null }),
    ]);
    expect(digest.resolution).toBe("I have sent it to your email.");
  });

  it("is not a deferral, an acknowledgement or a goodbye", () => {
    const digest = summarize([
      say("customer", "Can you refund the lamp?"),
      say("ai_agent", "One moment please."),
      say("ai_agent", "The refund of 20 euros is on its way to your card."),
      say("customer", "ok thanks"),
      say("ai_agent", "You're welcome! Have a nice day!"),
    ]);
    expect(digest.resolution).toBe("The refund of 20 euros is on its way to your card.");
  });

  it("is null when nothing answers the customer's last request", () => {
    expect(summarize([say("ai_agent", "Hello."), say("customer", "Hi, where is my order?")]).resolution).toBeNull();
    expect(
      summarize([say("customer", "Where is my order?"), say("ai_agent", "Let me check that for you.")]).resolution,
    ).toBeNull();
  });

  it("ignores system messages", () => {
    expect(summarize([say("customer", "Help with my order?"), say("system", "Session closed.")]).resolution).toBeNull();
  });

  it("is the agents' last substantive sentence when the customer never wrote", () => {
    expect(summarize([say("ai_agent", "Your order shipped. Tracking is attached.")]).resolution).toBe("Tracking is attached.");
  });
});

const kettle = () => [
  say("customer", "hi"),
  say("ai_agent", "Hello! How can I help?"),
  say("customer", "My kettle leaks from the bottom since Monday"),
  say("customer", "lol ok"),
  say("ai_agent", "Sorry to hear that."),
  say("ai_agent", "I have booked a replacement kettle for delivery on Friday."),
  say("customer", "thanks so much!"),
  say("ai_agent", "Is there anything else I can help with?"),
];

describe("summarizer: the summary says what the session was about", () => {
  it("says there is nothing when there are no events", () => {
    expect(summarize([])).toEqual({ summary: "No messages.", requested: null, resolution: null, highlights: [], searchable: "" });
  });

  it("is the session's content, both sides', in the order said, without small talk, counts or channels", () => {
    const digest = summarize(kettle());
    expect(digest.summary).toBe(
      "My kettle leaks from the bottom since Monday. I have booked a replacement kettle for delivery on Friday.",
    );
  });

  it("prefers the sentences about what the session was about when they do not all fit, and says a thing once", () => {
    const said = [
      "I ordered the blue armchair in March and the delivery has been moved twice",
      "The armchair delivery is now booked for Tuesday morning between 8 and 12",
      "By the way the weather in Leeds is lovely today",
      "The armchair delivery is now booked for Tuesday morning between 8 and 12",
      "Could the driver call before the armchair delivery on Tuesday",
      "The driver will call thirty minutes before the armchair delivery",
      "My neighbour can take the armchair delivery if I am out on Tuesday",
      "Your neighbour at number 14 is noted for the armchair delivery",
      "Please ask the driver to carry the armchair upstairs to the second floor on Tuesday",
      "The driver will carry the armchair upstairs and take the old packaging away",
      "The armchair is the blue velvet one",
      "The armchair delivery is free of charge",
      "Tuesday suits me for the armchair",
    ];
    const digest = summarize(said.map((text, i) => say(i % 2 === 0 ? "customer" : "ai_agent", text)));
    expect(new Set(said).size * 60).toBeGreaterThan(SUMMARY_BUDGET);
    expect(codePoints(digest.summary)).toBeLessThanOrEqual(SUMMARY_BUDGET);
    expect(digest.summary).not.toContain("weather");
    expect(digest.summary.split("booked for Tuesday").length).toBeLessThanOrEqual(2);
    // In the order said.
    const at = said.map((sentence) => digest.summary.indexOf(sentence)).filter((i) => i >= 0);
    expect(at.length).toBeGreaterThanOrEqual(3);
    expect(at).toEqual([...at].sort((a, b) => a - b));
  });

  it("leaves out openings, thanks and an agent's stock phrase said again", () => {
    const digest = summarize([
      say("ai_agent", "Hello, this is the support assistant, how can I help you today?"),
      say("customer", "My blender arrived with a cracked jug"),
      say("ai_agent", "Good to know, I'll make sure the team is aware."),
      say("ai_agent", "A replacement jug ships on Monday by courier."),
      say("customer", "I work nights, so afternoon deliveries suit me"),
      say("ai_agent", "Good to know, I'll make sure the team is aware."),
      say("customer", "Thanks so much, you've been really helpful!"),
    ]);
    expect(digest.summary).not.toMatch(/support assistant|helpful/);
    expect(digest.summary.split("make sure the team").length).toBeLessThanOrEqual(2);
    expect(digest.summary).toContain("A replacement jug ships on Monday by courier.");
  });

  it("keeps system happenings, after the sentences, and in what search finds", () => {
    const digest = summarize([
      say("customer", "Can you change my delivery address to 12 Main Street?", "chat"),
      event({ kind: "system_event", channel: null, speakerRole: "system", canonicalType: "order.updated" }),
      event({
        kind: "action",
        channel: "chat",
        speakerRole: "ai_agent",
        action: { operation: "update", objectType: "order", objectId: "o1", status: null, dueAt: null, attributes: null },
      }),
      say("human_agent", "Done, the delivery address is changed.", "email"),
    ]);
    expect(digest.summary).toBe(
      "Can you change my delivery address to 12 Main Street? Done, the delivery address is changed. Events: order.updated, update order.",
    );
    expect(digest.searchable).toBe(
      "Can you change my delivery address to 12 Main Street? Done, the delivery address is changed. order.updated, update order.",
    );
  });

  it("says what kind of session it was when nothing in it is content", () => {
    expect(summarize([say("customer", "hi"), say("ai_agent", "Hello! How are you?")]).summary).toBe("Small talk only.");
    expect(summarize([event({ kind: "message", speakerRole: null, text: null, channel: null })]).summary).toBe(
      "Messages without text.",
    );
    const systems = summarize([event({ kind: "system_event", canonicalType: " order.\nshipped ", channel: "webhook" })]);
    expect(systems.summary).toBe("Events: order. shipped.");
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
    expect(codePoints(summary)).toBeLessThanOrEqual(SUMMARY_BUDGET);
    expect(summary).toMatch(/ word…$/);
  });

  it("cuts a word longer than the limit, never inside a surrogate pair", () => {
    const requested = summarize([say("customer", "𝐚".repeat(300))]).requested ?? "";
    expect(requested).toBe(`${"𝐚".repeat(199)}…`);
  });
});

describe("summarizer: long texts and sessions take linear time", () => {
  it.each([
    ["a run of question marks before a letter", `${"?".repeat(100_000)}a`],
    ["a run of abbreviations", "Mr. ".repeat(40_000)],
    ["a run of initials", "J. ".repeat(40_000)],
    ["one long word", "a".repeat(200_000)],
  ])("digests %s within a second", (_, long) => {
    const started = performance.now();
    const events = [say("customer", long), say("ai_agent", long)];
    summarize(events);
    compileSession(events, { open: false, handoffAt: null }, COMPILER_PARTS);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it("compiles a session of 4,000 questions and answers within a second", () => {
    const events = Array.from({ length: 4_000 }, (_, i) =>
      i % 2 === 0 ? say("customer", `Is order ${i} ready to ship?`) : say("ai_agent", `Order ${i - 1} ships on Monday.`),
    );
    const started = performance.now();
    const compiled = compileSession(events, { open: false, handoffAt: null }, COMPILER_PARTS);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(compiled.derivations.filter((d) => d.type === "question" && d.body.answered_at === null)).toEqual([]);
  });
});

const text = fc.oneof(
  fc.string({ unit: "binary", maxLength: 400 }),
  fc
    .array(
      fc.constantFrom(
        "Where is my order?",
        "I need help.",
        "I'm moving to Leeds next month",
        "please",
        "Thanks!",
        "let me check",
        "😀",
        " ",
        "\n",
        "word",
        "x".repeat(250),
        ".",
      ),
      { maxLength: 30 },
    )
    .map((words) => words.join(" ")),
);

const attributes = fc.option(fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.double(), fc.boolean(), fc.constant(null))));

const memoryEvent = memoryEventOf(text, attributes);

const vocabulary = fc.oneof(
  fc.constant(EMPTY_VOCABULARY),
  fc.record({ documents: fc.nat(10_000), seed: fc.nat() }).map(
    ({ documents, seed }): Vocabulary => ({
      documents,
      documentFrequency: (stem) => (stem.length * 7919 + seed) % (documents + 1),
    }),
  ),
);

describe("summarizer: properties over any events", () => {
  it("never throws, is deterministic and keeps its bounds", () => {
    fc.assert(
      fc.property(fc.array(memoryEvent, { maxLength: 12 }), vocabulary, (events, words) => {
        const digest = summarize(events, words);
        expect(summarize(events, words)).toEqual(digest);
        expect(codePoints(digest.summary)).toBeLessThanOrEqual(SUMMARY_BUDGET);
        expect(digest.summary).not.toBe("");
        for (const line of [digest.summary, digest.requested, digest.resolution]) {
          if (line === null) continue;
          expect(line).toBe(line.trim());
          expect(line).not.toMatch(/\s\s/);
        }
        for (const line of [digest.requested, digest.resolution, ...digest.highlights.map((h) => h.text)]) {
          if (line !== null) expect(codePoints(line)).toBeLessThanOrEqual(200);
        }
        const customers = new Set(
          events.filter((e) => e.kind === "message" && e.speakerRole === "customer").map((e) => e.itemId),
        );
        expect(digest.highlights.length).toBeLessThanOrEqual(MAX_HIGHLIGHTS);
        for (const highlight of digest.highlights) expect(customers.has(highlight.eventId)).toBe(true);
      }),
    );
  });
});
