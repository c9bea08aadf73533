import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { patternExtractor } from "../../src/space/memory/extractor";
import { memoryEvent as event, memoryEventOf } from "../support/memory-events";

const customerSays = (text: string) => patternExtractor.extract(event({ kind: "message", speakerRole: "customer", text }));

const KEY = /^[a-z0-9]+(_[a-z0-9]+)*$/;

describe("extractor: a system event states its attributes", () => {
  it("keeps every non-null attribute, with a normalized key and a trimmed value", () => {
    const facts = patternExtractor.extract(
      event({
        kind: "system_event",
        speakerRole: "system",
        canonicalType: "order.shipped",
        attributes: { "Order ID": " A-17 ", carrier: "UPS", weight_kg: 2.5, gift: false, note: null, "--Tracking__URL--": "x" },
      }),
    );
    expect(facts).toEqual([
      { key: "order_id", value: "A-17" },
      { key: "carrier", value: "UPS" },
      { key: "weight_kg", value: "2.5" },
      { key: "gift", value: "false" },
      { key: "tracking_url", value: "x" },
    ]);
  });

  it("skips an attribute whose key or value is empty once cleaned", () => {
    const facts = patternExtractor.extract(
      event({ kind: "system_event", attributes: { "***": "x", été: "summer", blank: "  " } }),
    );
    expect(facts).toEqual([{ key: "t", value: "summer" }]);
  });

  it("cuts a value to 500 code points, never inside a surrogate pair", () => {
    const [fact] = patternExtractor.extract(event({ kind: "system_event", attributes: { note: "😀".repeat(600) } }));
    expect(fact?.value).toBe("😀".repeat(500));
  });

  it("states at most 20 facts", () => {
    const attributes = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`a${i}`, i]));
    const facts = patternExtractor.extract(event({ kind: "system_event", attributes }));
    expect(facts).toHaveLength(20);
    expect(facts[0]).toEqual({ key: "a0", value: "0" });
  });
});

describe("extractor: an action states its attributes and the action's", () => {
  it("takes the event's attributes, then the action's, a repeated key keeping its first value", () => {
    const facts = patternExtractor.extract(
      event({
        kind: "action",
        speakerRole: "ai_agent",
        attributes: { reason: "late", Priority: "high" },
        action: {
          operation: "create",
          objectType: "ticket",
          objectId: "t1",
          status: "open",
          dueAt: null,
          attributes: { priority: "low", queue: "billing", owner: null },
        },
      }),
    );
    expect(facts).toEqual([
      { key: "reason", value: "late" },
      { key: "priority", value: "high" },
      { key: "queue", value: "billing" },
    ]);
  });

  it("states nothing without attributes", () => {
    expect(patternExtractor.extract(event({ kind: "action", attributes: null, action: null }))).toEqual([]);
  });
});

describe("extractor: a customer's message states what the patterns find", () => {
  it.each([
    ["My email is jane@example.com.", [{ key: "email", value: "jane@example.com" }]],
    ["my phone number is +1 555 555 0100, thanks", [{ key: "phone_number", value: "+1 555 555 0100" }]],
    ["MY NEW DELIVERY ADDRESS IS 12 Main St", [{ key: "new_delivery_address", value: "12 Main St" }]],
    ["My wife's name is Ann", [{ key: "wife_s_name", value: "Ann" }]],
    ["I prefer email over phone!", [{ key: "preference", value: "email over phone" }]],
    ["I'd prefer a morning slot", [{ key: "preference", value: "a morning slot" }]],
    ["I would prefer no calls; texts are fine", [{ key: "preference", value: "no calls" }]],
    ["Please call me at 5pm tomorrow", [{ key: "contact_time", value: "5pm tomorrow" }]],
    ["call me at noon", [{ key: "contact_time", value: "noon" }]],
    ["Call me Jim", [{ key: "preferred_name", value: "Jim" }]],
    ["You can call me Mary Ann O'Brien please", [{ key: "preferred_name", value: "Mary Ann O'Brien" }]],
    ["I moved to Lisbon last month", [{ key: "city", value: "Lisbon last month" }]],
    ["I have moved to Porto", [{ key: "city", value: "Porto" }]],
    ["I’ve just moved to New York City.", [{ key: "city", value: "New York City" }]],
  ])("%s", (text, facts) => {
    expect(customerSays(text)).toEqual(facts);
  });

  it.each([
    "Please call me back",
    "call me tomorrow",
    "my order is",
    "It is my order",
    "Where is my parcel?",
    "I moved the meeting",
  ])("finds nothing in %j", (text) => {
    expect(customerSays(text)).toEqual([]);
  });

  it("reads every sentence, in order", () => {
    expect(customerSays("Hi. My name is Jane Doe.\nCall me Jane! I prefer email. My city is Porto, I moved to Porto.")).toEqual([
      { key: "name", value: "Jane Doe" },
      { key: "preferred_name", value: "Jane" },
      { key: "preference", value: "email" },
      { key: "city", value: "Porto" },
      { key: "city", value: "Porto" },
    ]);
  });

  it("states at most 20 facts", () => {
    expect(customerSays("My a is b. ".repeat(30))).toHaveLength(20);
  });

  it.each(["ai_agent", "human_agent", "system", null] as const)("a message by %s states nothing", (speakerRole) => {
    const facts = patternExtractor.extract(event({ kind: "message", speakerRole, text: "My name is Jane. Call me Jane." }));
    expect(facts).toEqual([]);
  });

  it("a customer's message states nothing from its attributes", () => {
    expect(patternExtractor.extract(event({ text: null, attributes: { plan: "gold" } }))).toEqual([]);
  });
});

const text = fc.oneof(
  fc.string({ unit: "binary", maxLength: 300 }),
  fc
    .array(
      fc.oneof(
        fc.constantFrom("my", "My", "is", "I", "I'd", "prefer", "call", "Call", "me", "at", "moved", "to", "Jim", ".", ",", "\n"),
        fc.string({ unit: "binary", maxLength: 6 }),
      ),
      { maxLength: 40 },
    )
    .map((words) => words.join(" ")),
);

const attributes = fc.option(
  fc.dictionary(
    fc.oneof(fc.string(), fc.string({ unit: "binary" })),
    fc.oneof(fc.string({ unit: "binary", maxLength: 700 }), fc.double(), fc.integer(), fc.boolean(), fc.constant(null)),
    { maxKeys: 30 },
  ),
);

const memoryEvent = memoryEventOf(text, attributes);

describe("extractor: properties over any event", () => {
  it("never throws, is deterministic and keeps its bounds", () => {
    fc.assert(
      fc.property(memoryEvent, (memory) => {
        const facts = patternExtractor.extract(memory);
        expect(patternExtractor.extract(memory)).toEqual(facts);
        expect(facts.length).toBeLessThanOrEqual(20);
        for (const { key, value } of facts) {
          expect(key).toMatch(KEY);
          expect(value).not.toBe("");
          expect(value).toBe(value.trim());
          expect(Array.from(value).length).toBeLessThanOrEqual(500);
        }
      }),
    );
  });

  it("states nothing for a message by anyone but the customer", () => {
    fc.assert(
      fc.property(memoryEvent, fc.constantFrom("ai_agent", "human_agent", "system", null), (memory, speakerRole) => {
        expect(patternExtractor.extract({ ...memory, kind: "message", speakerRole })).toEqual([]);
      }),
    );
  });
});
