import { describe, expect, it } from "vitest";
import { HotTier } from "../../src/space/memory/hot-tier";

describe("the hot tier's budget", () => {
  it("counts profiles with no open session, so reading many of them evicts the least recent", () => {
    const hot = new HotTier(10_000);
    const loads: string[] = [];
    const load = (profileId: string) => {
      loads.push(profileId);
      return [];
    };
    for (let n = 0; n < 1_000; n++) hot.live([`p${n}`], load);
    expect(hot.bytes).toBeGreaterThan(0);
    expect(hot.bytes).toBeLessThanOrEqual(10_000);
    hot.live(["p999"], load); // recent: still held
    expect(loads.filter((id) => id === "p999")).toHaveLength(1);
    hot.live(["p0"], load); // evicted long ago: loaded again
    expect(loads.filter((id) => id === "p0")).toHaveLength(2);
  });
});
