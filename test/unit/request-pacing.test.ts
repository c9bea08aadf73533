import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { READER_PAUSE_MS, READER_WINDOW_MS, RequestPacing } from "../../src/space/request-pacing";

describe("reads first: the alarm's rounds give way while readers are about", () => {
  it("pauses after a round only within the window of the last request seen", () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e9, noNaN: true }), fc.double({ min: 0, max: 100, noNaN: true }), (seenAt, after) => {
        const pacing = new RequestPacing();
        expect(pacing.pauseAfterRound(seenAt + after)).toBe(0);
        pacing.otherRequest(seenAt);
        expect(pacing.pauseAfterRound(seenAt + after)).toBe(after < READER_WINDOW_MS ? READER_PAUSE_MS : 0);
      }),
    );
  });

  it("counts from the latest request, so a stream of reads keeps every round paced", () => {
    const pacing = new RequestPacing();
    for (let at = 0; at < 1_000; at += READER_WINDOW_MS / 2) {
      pacing.otherRequest(at);
      expect(pacing.pauseAfterRound(at + READER_WINDOW_MS - 1)).toBe(READER_PAUSE_MS);
    }
    expect(pacing.pauseAfterRound(1_000 + READER_WINDOW_MS)).toBe(0);
  });
});
