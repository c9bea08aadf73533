import { describe, expect, it } from "vitest";
import type { Derivation } from "../../src/space/memory/derivation";
import {
  DERIVED_IN_CONTEXT,
  type EpisodeView,
  FACTS_LISTED,
  HIGHLIGHT_BYTES_IN_CONTEXT,
  memoryOf,
} from "../../src/space/memory/memory-view";

const fact = (key: string, at: number): Derivation => ({
  type: "fact",
  id: `fact-${key}`,
  itemId: `item-${key}`,
  sourceId: "src",
  subject: key,
  occurredAt: at,
  seq: at,
  body: { value: `value of ${key}` },
});

const episode = (n: number, highlights: string[]): EpisodeView => ({
  episode_id: `e${n}`,
  conversation_id: null,
  channel: "app",
  started_at: new Date(n).toISOString(),
  ended_at: new Date(n).toISOString(),
  status: "closed",
  summary: "s",
  requested: null,
  outcome: "resolved",
  resolution: null,
  promises: [],
  derived: Array.from({ length: 12 }, (_, i) => ({ type: "open_item" as const, id: `q${n}-${i}`, summary: "asked: ?" })),
  highlights: highlights.map((text, i) => ({ event_id: `m${n}-${i}`, text })),
});

const bytes = (text: string) => new TextEncoder().encode(text).length;

describe("what a context holds: caps on what grows with the history", () => {
  it("lists the facts of the keys stated last, by key", () => {
    const facts = Array.from({ length: 40 }, (_, i) => fact(`key_${String(i).padStart(2, "0")}`, 1_000 + i));
    const listed = memoryOf(facts, [], 0).facts;
    expect(listed).toHaveLength(FACTS_LISTED);
    expect(listed.map((f) => f.key)).toEqual(
      Array.from({ length: FACTS_LISTED }, (_, i) => `key_${String(i + 40 - FACTS_LISTED).padStart(2, "0")}`),
    );
  });

  it("gives each episode its first derived and the highlights that fit the budget, newest episode first", () => {
    const long = "é".repeat(150); // 300 bytes
    const episodes = [5, 4, 3, 2, 1].map((n) =>
      episode(
        n,
        Array.from({ length: 3 }, () => long),
      ),
    );
    const shown = memoryOf([], episodes, 0).episodes;
    expect(shown.map((e) => e.derived.length)).toEqual([5, 5, 5, 5, 5].map(() => DERIVED_IN_CONTEXT));
    expect(shown.map((e) => e.derived[0]?.id)).toEqual(["q5-0", "q4-0", "q3-0", "q2-0", "q1-0"]);
    const total = shown.flatMap((e) => e.highlights).reduce((sum, h) => sum + bytes(h.text), 0);
    expect(total).toBeLessThanOrEqual(HIGHLIGHT_BYTES_IN_CONTEXT);
    // 2,000 bytes hold six of 300: the newest two episodes' three each, none of the older ones'.
    expect(shown.map((e) => e.highlights.length)).toEqual([3, 3, 0, 0, 0]);
  });

  it("reads an episode stored before highlights were kept as having none", () => {
    const { highlights: _, ...old } = episode(1, []);
    expect(memoryOf([], [old as EpisodeView], 0).episodes[0]?.highlights).toEqual([]);
  });
});
