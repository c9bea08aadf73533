import { describe, expect, it } from "vitest";
import { COMPILER_PARTS } from "../../src/space/memory/compiler";
import { compileSession } from "../../src/space/memory/derivation";
import type { MemoryEvent } from "../../src/space/memory/memory-event";
import { EMPTY_VOCABULARY, extractiveSummarizer, type Vocabulary } from "../../src/space/memory/summarizer";
import { memoryEvent as event } from "../support/memory-events";

const say = (speakerRole: MemoryEvent["speakerRole"], text: string) => event({ kind: "message", speakerRole, text });

const highlights = (events: MemoryEvent[], vocabulary: Vocabulary = EMPTY_VOCABULARY) =>
  extractiveSummarizer.summarize(events, vocabulary).highlights.map((highlight) => highlight.text);

describe("highlights: the customer's statements about themselves", () => {
  it.each([
    ["a plan", "I'm moving to Leeds next month"],
    ["an event", "my daughter starts school in September"],
    ["a preference", "I prefer mornings for deliveries"],
    ["a problem", "the kettle I bought leaks"],
    ["a circumstance", "We work nights so weekends suit us better"],
  ])("takes %s", (_, statement) => {
    expect(highlights([say("customer", "hi"), say("customer", statement), say("ai_agent", "Noted, thank you.")])).toEqual([
      statement,
    ]);
  });

  it.each([
    ["greetings", "hi there"],
    ["thanks", "thank you so much for your help"],
    ["filler", "lol ok great"],
    ["small talk", "I'm good thanks, how are you?"],
    ["a bare question", "Can I change my delivery address?"],
    ["a sentence of one content word", "I agree"],
    ["a statement not about the speaker", "The weather is lovely in Leeds today"],
  ])("never takes %s", (_, text) => {
    expect(highlights([say("customer", text)])).toEqual([]);
  });

  it("never takes what an agent says, and cuts a long statement without splitting a surrogate pair", () => {
    expect(highlights([say("ai_agent", "I'm moving your delivery to next month")])).toEqual([]);
    const long = `I bought ${"kettles 𝐚𝐛𝐜 ".repeat(40)}`;
    const [text = ""] = highlights([say("customer", long)]);
    expect(Array.from(text).length).toBeLessThanOrEqual(200);
    expect(text.endsWith("…")).toBe(true);
    expect(text).not.toMatch(/[\ud800-\udbff]…$/);
  });

  it("takes an event's best sentence only, and a statement said twice once", () => {
    const digest = extractiveSummarizer.summarize(
      [
        say("customer", "I'm moving to Leeds next month. My new flat has no lift."),
        say("customer", "I'm moving to Leeds next month"),
      ],
      EMPTY_VOCABULARY,
    );
    expect(digest.highlights).toHaveLength(1);
  });

  it("weighs words by the space's frequencies: a statement of words every row holds ranks lower", () => {
    const events = [say("customer", "My order needs a new delivery slot"), say("customer", "My cat knocked the vase over")];
    expect(highlights(events)[0]).toBe("My order needs a new delivery slot");
    const common = new Set(["order", "need", "new", "deliveri", "slot"]);
    const vocabulary: Vocabulary = { documents: 1000, documentFrequency: (stem) => (common.has(stem) ? 900 : 2) };
    expect(highlights(events, vocabulary)[0]).toBe("My cat knocked the vase over");
  });
});

describe("highlights: what an episode keeps", () => {
  const session = [
    say("customer", "hello"),
    say("customer", "I'm moving to Leeds next month"),
    say("ai_agent", "Congratulations! How can I help?"),
    say("customer", "my daughter starts school in September"),
    say("customer", "I prefer morning deliveries because I work late"),
    say("customer", "thanks, bye"),
  ];

  it("keeps the space's number of them, in the order said, with their events' ids", () => {
    const kept = (highlights: number) =>
      compileSession(session, { open: false, handoffAt: null }, COMPILER_PARTS, { vocabulary: EMPTY_VOCABULARY, highlights })
        .episode.highlights;
    const three = kept(3);
    expect(three.map((h) => h.event_id)).toEqual([session[1], session[3], session[4]].map((e) => e?.itemId));
    expect(three.map((h) => h.text)).toEqual([session[1], session[3], session[4]].map((e) => e?.text));
    const two = kept(2);
    expect(two).toHaveLength(2);
    const order = session.map((e) => e.itemId);
    expect(two.map((h) => order.indexOf(h.event_id))).toEqual(two.map((h) => order.indexOf(h.event_id)).sort((a, b) => a - b));
    expect(kept(0)).toEqual([]);
  });
});
