import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BatchAnswerSchema } from "../../src/contract/batch";
import { phone, restartSpaceObject } from "../support/identity";
import { fullContext, later, moveClock, setClock } from "../support/memory";
import { runs } from "../support/property-runs";
import { batch, createSpace, json, message, type Space } from "../support/seed";

/**
 * `live` through any history of arrivals (docs/api/memory.md, sessions and the hot tier): events
 * of two whatsapp conversations, each sent at some time after it happened (a backfill, a retry,
 * in real time), in batches between which time passes. After every batch, every event whose
 * window reaches past now is in `live` (its session is open, or opened again), and the hot tier
 * answers what a restarted object reads from SQLite.
 */

const MINUTE = 60_000;
const WINDOW = 20 * MINUTE;
const CUSTOMER = phone("+15555550490");

interface Step {
  /** Minutes the clock moves before the batch. */
  wait: number;
  /** Each event: its conversation, and how many minutes before the batch it happened. */
  events: { conversation: 0 | 1; ago: number }[];
}

const stepArb: fc.Arbitrary<Step> = fc.record({
  wait: fc.integer({ min: 0, max: 30 }),
  events: fc.array(
    fc.record({
      conversation: fc.constantFrom<0 | 1>(0, 1),
      ago: fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 45 })),
    }),
    { minLength: 1, maxLength: 4 },
  ),
});

async function send(space: Space, items: unknown[]): Promise<void> {
  const answer = BatchAnswerSchema.parse(await json(await batch(space, items), 200));
  expect(answer.errors).toEqual([]);
}

describe("live: every event whose window reaches past now, the same held or read again", () => {
  it("holds for any history of late and real-time arrivals", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 5 }), async (steps) => {
        const space = await createSpace();
        let now = await moveClock(space, 0);
        const sent: { text: string; at: number }[] = [];
        for (const [index, step] of steps.entries()) {
          await later(space, step.wait * MINUTE);
          now += step.wait * MINUTE;
          const items = step.events.map(({ conversation, ago }, n) => {
            const text = `step ${index} event ${n}`;
            sent.push({ text, at: now - ago * MINUTE });
            return message({
              handles: [CUSTOMER],
              conversation_id: `wa-${conversation}`,
              occurred_at: new Date(now - ago * MINUTE).toISOString(),
              content: { type: "text", text },
            });
          });
          await send(space, items);
          const live = (await fullContext(space, { handle: CUSTOMER })).live.map((item) => item.text);
          const due = sent.filter(({ at }) => at + WINDOW > now).map(({ text }) => text);
          if (live.length < 50) expect(live).toEqual(expect.arrayContaining(due));
        }
        const held = (await fullContext(space, { handle: CUSTOMER })).live;
        await restartSpaceObject(space);
        await setClock(space, now);
        expect((await fullContext(space, { handle: CUSTOMER })).live).toEqual(held);
      }),
      { numRuns: runs(10) },
    );
  });
});
