import type { MemoryEvent } from "./memory-event";
import { cosine, type Vector, vectorOf } from "./salience";
import { cut } from "./sentences";
import type { Reading } from "./speech-acts";
import type { Highlight } from "./summarizer";

/** The most highlights a digest offers; the space's `episode_highlights` keeps fewer. */
export const MAX_HIGHLIGHTS = 10;
/** A highlight's text at most, in code points. */
export const HIGHLIGHT_LIMIT = 200;

/** Times and plans ("next month", "in September", "since 2019"), habits and likes: what is worth remembering of a person. */
const WHEN_OR_LIKES =
  /\b(next|last|this|every) (week|month|year|weekend|summer|winter|spring|autumn|fall|monday|tuesday|wednesday|thursday|friday|saturday|sunday|morning|evening|night)|\b(tomorrow|yesterday|tonight|soon|ago|since|until|recently|usually|always|never|going to|gonna|planning|plan to|about to|prefer|love|hate|enjoy|rather|favou?rite|allergic)\b|\b(january|february|march|april|june|july|august|september|october|november|december|mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|mornings|evenings|afternoons|weekends)\b|\d/i;
/** Content words counted at most: a long sentence is not worth more than a full one. */
const WORDS_COUNTED = 8;
/** A highlight this similar to one chosen says the same thing again. */
const SAME = 0.8;

/**
 * The customer's sentences that state something about them (docs/api/memory.md "Highlights"),
 * best first, at most one per event and `MAX_HIGHLIGHTS` in all: first-person statements of
 * events, plans, preferences, circumstances and problems, scored by their content words (rare
 * ones weigh more) and their first-person and time cues. Greetings, thanks, filler, bare
 * questions and sentences of fewer than two content words are never highlights.
 */
export function highlightsOf(
  turns: readonly { event: MemoryEvent; readings: readonly Reading[] }[],
  idf: (stem: string) => number,
): Highlight[] {
  const scored: { eventId: string; reading: Reading; score: number; order: number }[] = [];
  for (const { event, readings } of turns) {
    if (event.kind !== "message" || event.speakerRole !== "customer") continue;
    let best: { reading: Reading; score: number } | null = null;
    for (const reading of readings) {
      const score = scoreOf(reading, idf);
      if (score > 0 && (best === null || score > best.score)) best = { reading, score };
    }
    if (best) scored.push({ eventId: event.itemId, ...best, order: scored.length });
  }
  scored.sort((a, b) => b.score - a.score || a.order - b.order);
  const chosen: { highlight: Highlight; vector: Vector }[] = [];
  for (const { eventId, reading } of scored) {
    if (chosen.length >= MAX_HIGHLIGHTS) break;
    const vector = vectorOf(reading.stems, idf);
    if (chosen.some((other) => cosine(vector, other.vector) >= SAME)) continue;
    chosen.push({ highlight: { eventId, text: cut(reading.text, HIGHLIGHT_LIMIT) }, vector });
  }
  return chosen.map(({ highlight }) => highlight);
}

/** 0 for a sentence that is no statement about the customer. */
function scoreOf(reading: Reading, idf: (stem: string) => number): number {
  if (reading.firstPerson === 0 || reading.stems.length < 2) return 0;
  if (reading.smallTalk || reading.closing || reading.acknowledgement || reading.deferral) return 0;
  // A question is a statement only when it starts as one ("I bought a kettle last week, can I return it?").
  if (reading.question && reading.firstPerson < 2) return 0;
  let words = 0;
  for (const stem of reading.stems.slice(0, WORDS_COUNTED)) words += idf(stem);
  const subject = reading.firstPerson === 2 ? 1.5 : 1;
  const when = WHEN_OR_LIKES.test(reading.text) ? 1.25 : 1;
  const wants = reading.question ? 0.5 : reading.request ? 0.6 : 1;
  return words * subject * when * wants;
}
