import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type Bucket,
  fullBucket,
  readReserve,
  refilled,
  take,
  tokensNeeded,
  UNITS_PER_TOKEN,
} from "../../src/space/limits/token-bucket";
import { runs } from "../support/property-runs";

const perMinuteArb = fc.oneof(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 1_000_000 }));
/** Requests: a gap in ms since the one before, and whether it is a write. */
const requestsArb = fc.array(
  fc.record({ gap: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 90_000 })), write: fc.boolean() }),
  {
    maxLength: 200,
  },
);

/** Runs the requests through one bucket that starts full at 0; which were let through, and the bucket after each. */
function replay(perMinute: number, requests: { gap: number; write: boolean }[]) {
  let bucket: Bucket = fullBucket(perMinute, 0);
  let now = 0;
  return requests.map(({ gap, write }) => {
    now += gap;
    const outcome = take(bucket, perMinute, tokensNeeded(perMinute, write), now);
    bucket = outcome.bucket;
    return { at: now, write, taken: outcome.taken, bucket, retryAfter: outcome.taken ? 0 : outcome.retryAfter };
  });
}

describe("token buckets: the arithmetic", () => {
  it("never lets more through in a window than a full bucket and the window's refill", () => {
    fc.assert(
      fc.property(perMinuteArb, requestsArb, (perMinute, requests) => {
        const taken = replay(perMinute, requests).filter((step) => step.taken);
        for (let i = 0; i < taken.length; i++) {
          for (let j = i; j < taken.length; j++) {
            const window = (taken[j]?.at ?? 0) - (taken[i]?.at ?? 0);
            expect(j - i + 1).toBeLessThanOrEqual(perMinute + Math.floor((window * perMinute) / UNITS_PER_TOKEN));
          }
        }
      }),
      { numRuns: runs(300) },
    );
  });

  it("keeps the bucket between empty and full, in whole units", () => {
    fc.assert(
      fc.property(perMinuteArb, requestsArb, (perMinute, requests) => {
        for (const { bucket } of replay(perMinute, requests)) {
          expect(Number.isSafeInteger(bucket.units)).toBe(true);
          expect(bucket.units).toBeGreaterThanOrEqual(0);
          expect(bucket.units).toBeLessThanOrEqual(perMinute * UNITS_PER_TOKEN);
        }
      }),
      { numRuns: runs(300) },
    );
  });

  it("lets a refused request through after Retry-After seconds, and never a second sooner", () => {
    fc.assert(
      fc.property(perMinuteArb, requestsArb, (perMinute, requests) => {
        for (const step of replay(perMinute, requests)) {
          if (step.taken) continue;
          const needed = tokensNeeded(perMinute, step.write);
          expect(step.retryAfter).toBeGreaterThanOrEqual(1);
          expect(take(step.bucket, perMinute, needed, step.at + step.retryAfter * 1000).taken).toBe(true);
          if (step.retryAfter > 1) {
            expect(take(step.bucket, perMinute, needed, step.at + (step.retryAfter - 1) * 1000).taken).toBe(false);
          }
        }
      }),
      { numRuns: runs(300) },
    );
  });

  it("limits writes before reads: a read passes wherever a write does, and in the reserve a write cannot use", () => {
    fc.assert(
      fc.property(perMinuteArb, requestsArb, fc.integer({ min: 0, max: 120_000 }), (perMinute, requests, later) => {
        const steps = replay(perMinute, requests);
        const last = steps.at(-1);
        const bucket = last?.bucket ?? fullBucket(perMinute, 0);
        const at = (last?.at ?? 0) + later;
        const write = take(bucket, perMinute, tokensNeeded(perMinute, true), at).taken;
        const read = take(bucket, perMinute, tokensNeeded(perMinute, false), at).taken;
        if (write) expect(read).toBe(true);
        const held = refilled(bucket, perMinute, at).units / UNITS_PER_TOKEN;
        expect(read).toBe(held >= 1);
        expect(write).toBe(held >= 1 + readReserve(perMinute));
      }),
      { numRuns: runs(300) },
    );
  });

  it("refills nothing when the clock goes back, and is full a minute after it was last measured", () => {
    fc.assert(
      fc.property(
        perMinuteArb,
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.integer({ min: 0, max: 10_000_000 }),
        (perMinute, fraction, at) => {
          const bucket = { units: fraction % (perMinute * UNITS_PER_TOKEN), at };
          expect(refilled(bucket, perMinute, at - 5_000)).toEqual(bucket);
          expect(refilled(bucket, perMinute, at + 60_000).units).toBe(perMinute * UNITS_PER_TOKEN);
        },
      ),
      { numRuns: runs(300) },
    );
  });
});
