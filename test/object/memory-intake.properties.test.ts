import { runInDurableObject } from "cloudflare:test";
import type { z } from "@hono/zod-openapi";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BatchAnswerSchema } from "../../src/contract/batch";
import type { MemorySchema } from "../../src/contract/context";
import { rootOf } from "../../src/space/identity/profiles";
import { queueProfile } from "../../src/space/memory/compiler";
import type { SpaceObject } from "../../src/space/object";
import { phone } from "../support/identity";
import { fullContext, later, setClock, stub } from "../support/memory";
import { runs } from "../support/property-runs";
import { batch, createSpace, json, message, type Space } from "../support/seed";

/**
 * The memory compiler through the object (DESIGN 3.7): events sent in any split into batches,
 * in any arrival order, with compiles in between (each recompiling only what its sessions
 * touched) give the memory that the same events sent at once in `occurred_at` order give; and
 * that memory equals a rebuild of the profile's memory from scratch.
 */

const RUNS = 8;
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** Near real time, so that the real alarm the object sets is not long overdue while the test fires it by hand. */
const NOW = Math.floor(Date.now() / MINUTE) * MINUTE;
const iso = (ms: number) => new Date(ms).toISOString();
const CUSTOMER = phone("+15555550300");

/** One event of the customer's history, minutes before NOW; conversations on channels with long windows, so that arrival order never splits a session. */
type Spec =
  | { kind: "say"; role: "customer" | "human_agent"; text: string; conversation: 0 | 1 }
  | { kind: "act"; operation: "create" | "update" | "promise" | "cancel"; object: string; status?: string; due?: -1 | 1 }
  | { kind: "system"; type: string; object: string | null; attributes: Record<string, string> };

const CONVERSATIONS = [
  { conversation_id: "conv-mail", channel: "email" },
  { conversation_id: "conv-crm", channel: "crm" },
] as const;

const sayArb: fc.Arbitrary<Spec> = fc.record({
  kind: fc.constant("say" as const),
  role: fc.constantFrom("customer" as const, "human_agent" as const),
  text: fc.constantFrom(
    "My tier is gold.",
    "My tier is platinum. Where is my order?",
    "My city is Lisbon.",
    "I'd prefer email",
    "Thanks, that helps.",
    "Can you call me back?",
  ),
  conversation: fc.constantFrom(0 as const, 1 as const),
});
const actArb: fc.Arbitrary<Spec> = fc.record(
  {
    kind: fc.constant("act" as const),
    operation: fc.constantFrom("create" as const, "update" as const, "promise" as const, "cancel" as const),
    object: fc.constantFrom("o-1", "o-2"),
    status: fc.constantFrom("open", "packed", "delivered"),
    due: fc.constantFrom(-1 as const, 1 as const),
  },
  { requiredKeys: ["kind", "operation", "object"] },
);
const systemArb: fc.Arbitrary<Spec> = fc.record({
  kind: fc.constant("system" as const),
  type: fc.constantFrom("customer.updated", "order.shipped", "order.delivered", "ticket.opened"),
  object: fc.option(fc.constantFrom("o-1", "o-2"), { nil: null }),
  attributes: fc.dictionary(fc.constantFrom("tier", "city", "status"), fc.constantFrom("gold", "Porto", "shipped"), {
    maxKeys: 2,
  }),
});

/** Events at distinct minutes, so that no two lists tie on time. */
const historyArb = fc
  .uniqueArray(fc.integer({ min: 1, max: 180 }), { minLength: 1, maxLength: 12 })
  .chain((minutes) =>
    fc.tuple(
      fc.constant(minutes),
      fc.array(fc.oneof(sayArb, actArb, systemArb), { minLength: minutes.length, maxLength: minutes.length }),
    ),
  )
  .map(([minutes, specs]) => specs.map((spec, index) => ({ spec, at: NOW - (minutes[index] ?? 0) * MINUTE })));

function itemOf({ spec, at }: { spec: Spec; at: number }, index: number): Record<string, unknown> {
  const common = { idempotency_key: `event-${index}`, handles: [CUSTOMER], occurred_at: iso(at) };
  switch (spec.kind) {
    case "say":
      return message({
        ...common,
        ...CONVERSATIONS[spec.conversation],
        speaker: { role: spec.role },
        content: { type: "text", text: spec.text },
      });
    case "act":
      return message({
        ...common,
        ...CONVERSATIONS[0],
        kind: "action",
        speaker: { role: "human_agent" },
        content: undefined,
        action: {
          operation: spec.operation,
          object_type: "order",
          object_id: spec.object,
          ...(spec.status ? { status: spec.status } : {}),
          ...(spec.operation === "promise" ? { due_at: iso(NOW + (spec.due ?? 1) * DAY) } : {}),
        },
      });
    case "system":
      return message({
        ...common,
        ...CONVERSATIONS[1],
        kind: "system_event",
        canonical_type: spec.type,
        speaker: { role: "system" },
        content: undefined,
        attributes: spec.attributes,
        ...(spec.object ? { object: { object_type: "order", object_id: spec.object } } : {}),
      });
  }
}

async function send(space: Space, items: unknown[]): Promise<void> {
  const answer = BatchAnswerSchema.parse(await json(await batch(space, items), 200));
  expect(answer.errors).toEqual([]);
}

/** Ids differ between spaces (items get new ones): compare memories with ids replaced by their order of appearance. */
function comparable(memory: z.infer<typeof MemorySchema>): unknown {
  const ids = new Map<string, string>();
  return JSON.parse(
    JSON.stringify(memory).replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => {
      if (!ids.has(id)) ids.set(id, `id-${ids.size}`);
      return ids.get(id) as string;
    }),
  );
}

describe("memory compiler: incremental through the object", () => {
  it("compiles any split and arrival order of events to the memory of the same events sent in order, and to a rebuild from scratch", async () => {
    await fc.assert(
      fc.asyncProperty(
        historyArb.chain((history) =>
          fc.tuple(
            fc.constant(history),
            fc.shuffledSubarray(
              history.map((_, index) => index),
              { minLength: history.length },
            ),
            fc.array(fc.boolean(), { minLength: history.length, maxLength: history.length }),
          ),
        ),
        async ([history, arrival, cuts]) => {
          const items = history.map(itemOf);
          const options = { source: { act: { operations: ["create", "promise", "update", "cancel"], object_types: ["order"] } } };
          const [stepwise, atOnce] = [await createSpace(options), await createSpace(options)];
          await setClock(stepwise, NOW);
          await setClock(atOnce, NOW);

          let pending: unknown[] = [];
          for (const [position, index] of arrival.entries()) {
            pending.push(items[index]);
            if (cuts[position] || position === arrival.length - 1) {
              await send(stepwise, pending);
              pending = [];
              await later(stepwise, 1_000);
            }
          }
          const inOrder = history.map((event, index) => ({ event, item: items[index] })).sort((a, b) => a.event.at - b.event.at);
          await send(
            atOnce,
            inOrder.map(({ item }) => item),
          );
          await later(atOnce, 1_000);

          const incremental = await fullContext(stepwise, { handle: CUSTOMER });
          const sorted = await fullContext(atOnce, { handle: CUSTOMER });
          expect(comparable(incremental.memory)).toEqual(comparable(sorted.memory));

          await runInDurableObject(stub(stepwise), (instance: SpaceObject, state) => {
            const rootId = rootOf(state.storage.sql, incremental.profile_id)?.profileId ?? incremental.profile_id;
            queueProfile(state.storage.sql, [rootId], instance.clock.now());
          });
          await later(stepwise, 1_000);
          const rebuilt = await fullContext(stepwise, { handle: CUSTOMER });
          expect(rebuilt.compiled.version).toBeGreaterThan(incremental.compiled.version);
          expect(rebuilt.memory).toEqual(incremental.memory);
        },
      ),
      { numRuns: runs(RUNS) },
    );
  });
});
