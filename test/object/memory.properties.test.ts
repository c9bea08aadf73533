import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { COMPILER_PARTS } from "../../src/space/memory/compiler";
import { compileSession, type Derivation } from "../../src/space/memory/derivation";
import type { MemoryEvent } from "../../src/space/memory/memory-event";
import { memoryOf } from "../../src/space/memory/memory-view";
import { runs } from "../support/property-runs";

/**
 * Properties of the memory compiler's pure functions (DESIGN 3.7, STYLE "derived state is a pure
 * function of events"): one session's events, in `occurred_at` order, compile to the same thing
 * every time; a customer's sign-off at the end leaves the outcome as it was, and an unanswered last
 * request makes it abandoned; a profile's memory does not depend on the order its derivations are
 * given in; and the active value of a fact is the one stated last by `(occurred_at, seq)`.
 */

const RUNS = 25;
const BASE = Date.UTC(2026, 10, 22, 12, 0, 0);
const MINUTE = 60_000;

type Scalar = string | number | boolean | null;
type EventSpec = Omit<MemoryEvent, "itemId" | "seq">;

const KEYS = ["tier", "city", "postcode", "status", "favourite colour"] as const;
const VALUES = ["gold", "Lisbon", "28001", "blue", "platinum"] as const;
const OBJECTS = ["o-1", "o-2"] as const;

/** Minutes from BASE: a narrow spread, so that events often share an `occurred_at`. */
const at = fc.integer({ min: 0, max: 15 }).map((minutes) => BASE + minutes * MINUTE);
const scalar: fc.Arbitrary<Scalar> = fc.oneof(
  fc.constantFrom(...VALUES),
  fc.integer({ min: 0, max: 9 }),
  fc.boolean(),
  fc.constant(null),
);
const attributes = fc.dictionary(fc.constantFrom(...KEYS), scalar, { maxKeys: 3 });

/** "My <key> is <value>." sentences, maybe a question. */
const text = fc
  .tuple(
    fc.array(fc.tuple(fc.constantFrom(...KEYS), fc.constantFrom(...VALUES)), { maxLength: 2 }),
    fc.boolean(),
    fc.constantFrom("Hello.", "Thanks", "ok"),
  )
  .map(([facts, asks, filler]) =>
    [filler, ...facts.map(([key, value]) => `My ${key} is ${value}.`), asks ? "Where is my order?" : ""].join(" ").trim(),
  );

const common = (occurredAt: number, sourceId: string) => ({
  occurredAt,
  channel: "whatsapp",
  conversationId: "conv-1",
  taskId: null,
  sourceId,
});
const source = fc.constantFrom("src-1", "src-2");

const messageSpec: fc.Arbitrary<EventSpec> = fc
  .record({ at, sourceId: source, role: fc.constantFrom("customer", "ai_agent", "human_agent"), text })
  .map(({ at, sourceId, role, text }) => ({
    ...common(at, sourceId),
    kind: "message",
    speakerRole: role as MemoryEvent["speakerRole"],
    text,
    canonicalType: null,
    attributes: null,
    action: null,
    object: null,
  }));

const systemSpec: fc.Arbitrary<EventSpec> = fc
  .record({
    at,
    sourceId: source,
    canonicalType: fc.constantFrom("customer.updated", "order.shipped", "order.delivered", "ticket.escalated", "ticket.resolved"),
    attributes,
    object: fc.option(fc.constantFrom(...OBJECTS), { nil: undefined }),
  })
  .map(({ at, sourceId, canonicalType, attributes, object }) => ({
    ...common(at, sourceId),
    kind: "system_event",
    speakerRole: "system",
    text: null,
    canonicalType,
    attributes,
    action: null,
    object: object === undefined ? null : { objectType: "order", objectId: object },
  }));

const actionSpec: fc.Arbitrary<EventSpec> = fc
  .record({
    at,
    sourceId: source,
    role: fc.constantFrom("ai_agent", "human_agent", "system", "customer"),
    operation: fc.constantFrom("promise", "update", "cancel", "create"),
    objectId: fc.constantFrom(...OBJECTS),
    status: fc.option(fc.constantFrom("packed", "shipped", "delivered"), { nil: null }),
    dueAt: fc.option(
      at.map((time) => time + 5 * MINUTE),
      { nil: null },
    ),
    actionAttributes: fc.option(attributes, { nil: null }),
    eventAttributes: fc.option(attributes, { nil: null }),
  })
  .map(({ at, sourceId, role, operation, objectId, status, dueAt, actionAttributes, eventAttributes }) => ({
    ...common(at, sourceId),
    kind: "action",
    speakerRole: role as MemoryEvent["speakerRole"],
    text: null,
    canonicalType: null,
    attributes: eventAttributes,
    action: { operation, objectType: "order", objectId, status, dueAt, attributes: actionAttributes },
    object: null,
  }));

/** One session's events drawn from `spec`, with distinct `seq`, unsorted. */
const eventsFrom = (spec: fc.Arbitrary<EventSpec>): fc.Arbitrary<MemoryEvent[]> =>
  fc
    .array(spec, { minLength: 1, maxLength: 14 })
    .chain((specs) =>
      fc
        .uniqueArray(fc.integer({ min: 1, max: 100_000 }), { minLength: specs.length, maxLength: specs.length })
        .map((seqs) => specs.map((spec, index) => ({ ...spec, itemId: `item-${index}`, seq: seqs[index] ?? index }))),
    );
const eventsArb = eventsFrom(fc.oneof(messageSpec, systemSpec, actionSpec));

/** Memory order, as `session-events.ts` reads a session: `occurred_at`, then `seq`. */
const inMemoryOrder = (events: readonly MemoryEvent[]) =>
  [...events].sort((a, b) => a.occurredAt - b.occurredAt || a.seq - b.seq);

/** A permutation of `list`, drawn by fast-check. */
const permutation = <T>(list: readonly T[]) => fc.shuffledSubarray([...list], { minLength: list.length, maxLength: list.length });

const sessionArb = fc.record({ open: fc.boolean(), handoffAt: fc.option(at, { nil: null }) });
/**
 * Any session, or a closed chat of the customer with an AI agent alone: no handoff and no
 * system's word, so its messages decide how it ended.
 */
const endedArb = fc.oneof(
  fc.tuple(eventsArb, sessionArb),
  fc.tuple(
    eventsFrom(messageSpec.filter((spec) => spec.speakerRole !== "human_agent")),
    fc.constant({ open: false, handoffAt: null }),
  ),
);
const nowArb = fc.integer({ min: 0, max: 40 }).map((minutes) => BASE + minutes * MINUTE);

/** The customer's last words, after every event drawn (`at` ends at 15 minutes). */
const lastWords = (texts: readonly string[]): MemoryEvent[] =>
  texts.map((text, index) => ({
    itemId: `last-${index}`,
    seq: 200_000 + index,
    ...common(BASE + (20 + index) * MINUTE, "src-1"),
    kind: "message",
    speakerRole: "customer",
    text,
    canonicalType: null,
    attributes: null,
    action: null,
    object: null,
  }));
/** A customer's closing turn that asks nothing (docs/api/memory.md, episode outcome). */
const signOffs = fc.array(fc.constantFrom("Thanks, bye!", "ok", "great thanks", "👍", "perfect, that's all I needed", "cheers"), {
  minLength: 1,
  maxLength: 3,
});
const requests = fc.constantFrom("Where is my order?", "Can you change my address?", "I need a refund for the broken kettle");

/** A customer's message that states one key twice: both facts come from one event, at one (occurred_at, seq). */
const restated: MemoryEvent = {
  itemId: "item-0",
  seq: 1,
  ...common(BASE, "src-1"),
  kind: "message",
  speakerRole: "customer",
  text: "My tier is gold. My tier is platinum.",
  canonicalType: null,
  attributes: null,
  action: null,
  object: null,
};
const restatedDerivations = compileSession([restated], { open: false, handoffAt: null }, COMPILER_PARTS).derivations;

/** Derivations with one id: the same thing derived twice, which `memoryOf` cannot order. */
const hasDuplicateIds = (derivations: readonly Derivation[]) => new Set(derivations.map((d) => d.id)).size < derivations.length;

describe("memory compiler: pure functions of the events", () => {
  it("compiles a session deterministically, whatever order its events arrived in", () => {
    fc.assert(
      fc.property(
        eventsArb.chain((events) => fc.tuple(fc.constant(events), permutation(events))),
        sessionArb,
        ([events, arrived], session) => {
          const once = compileSession(inMemoryOrder(events), session, COMPILER_PARTS);
          const again = compileSession(inMemoryOrder(structuredClone(arrived)), session, COMPILER_PARTS);
          expect(again).toEqual(once);
          expect(compileSession(inMemoryOrder(events), session, COMPILER_PARTS)).toEqual(once);
        },
      ),
      { numRuns: runs(RUNS) },
    );
  });

  it("gives a session the same outcome when the customer only signs off at the end", () => {
    fc.assert(
      fc.property(endedArb, signOffs, ([events, session], texts) => {
        const ordered = inMemoryOrder(events);
        const closed = compileSession([...ordered, ...lastWords(texts)], session, COMPILER_PARTS);
        expect(closed.episode.outcome).toBe(compileSession(ordered, session, COMPILER_PARTS).episode.outcome);
      }),
      { numRuns: runs(RUNS) },
    );
  });

  it("makes a closed session abandoned when the customer's last request goes unanswered, thanks or not", () => {
    fc.assert(
      fc.property(endedArb, requests, fc.option(signOffs, { nil: [] }), ([events, session], request, texts) => {
        const ordered = inMemoryOrder(events);
        const { outcome } = compileSession([...ordered, ...lastWords([request, ...texts])], session, COMPILER_PARTS).episode;
        // A handoff or a system's word decides before the messages do.
        const before = compileSession(ordered, session, COMPILER_PARTS).episode.outcome;
        if (before === "escalated") expect(outcome).toBe("escalated");
        else if (events.some((event) => event.canonicalType === "ticket.resolved")) expect(outcome).toBe("resolved");
        else expect(outcome).toBe(session.open ? "unknown" : "abandoned");
      }),
      { numRuns: runs(RUNS) },
    );
  });

  it("gives the same memory whatever order the derivations are given in", () => {
    fc.assert(
      fc.property(
        eventsArb
          .map((events) => compileSession(inMemoryOrder(events), { open: false, handoffAt: null }, COMPILER_PARTS).derivations)
          .chain((derivations) => fc.tuple(fc.constant(derivations), permutation(derivations))),
        nowArb,
        ([derivations, shuffled], now) => {
          expect(memoryOf(shuffled, [], now)).toEqual(memoryOf(derivations, [], now));
        },
      ),
      // The restated key first, so that a run never passes by missing it.
      { numRuns: runs(RUNS), examples: [[[restatedDerivations, [...restatedDerivations].reverse()], BASE]] },
    );
  });

  it("keeps as the active value of each fact key the one with the greatest (occurred_at, seq)", () => {
    fc.assert(
      fc.property(
        eventsArb
          .map((events) => compileSession(inMemoryOrder(events), { open: false, handoffAt: null }, COMPILER_PARTS).derivations)
          .chain((derivations) => permutation(derivations)),
        nowArb,
        (derivations, now) => {
          // A key stated twice by one event has no greatest (occurred_at, seq): the property above covers it.
          fc.pre(!hasDuplicateIds(derivations));
          const latest = new Map<string, Extract<Derivation, { type: "fact" }>>();
          for (const derivation of derivations) {
            if (derivation.type !== "fact") continue;
            const held = latest.get(derivation.subject);
            const newer =
              !held ||
              derivation.occurredAt > held.occurredAt ||
              (derivation.occurredAt === held.occurredAt && derivation.seq > held.seq);
            if (newer) latest.set(derivation.subject, derivation);
          }
          const facts = memoryOf(derivations, [], now).facts;
          expect(facts.map((fact) => fact.key)).toEqual([...latest.keys()].sort());
          for (const fact of facts) {
            const expected = latest.get(fact.key);
            expect([fact.value, fact.valid_from, fact.status, fact.provenance.event_id]).toEqual([
              expected?.body.value,
              new Date(expected?.occurredAt ?? 0).toISOString(),
              "active",
              expected?.itemId,
            ]);
          }
        },
      ),
      { numRuns: runs(RUNS) },
    );
  });
});
