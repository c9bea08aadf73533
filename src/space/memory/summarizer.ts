import { highlightsOf } from "./highlights";
import type { MemoryEvent } from "./memory-event";
import { centroidOf, idfOf, select, vectorOf } from "./salience";
import { codePoints, cut, punctuate } from "./sentences";
import { isSubstantive, type Reading, readingsOfEvent } from "./speech-acts";

/** A customer's sentence worth keeping, and the event (its `itemId`, the API's `event_id`) that says it. */
export interface Highlight {
  eventId: string;
  text: string;
}

/** What one session came to: what it was about, what was asked and answered, what the customer said of themselves. */
export interface EpisodeDigest {
  summary: string;
  requested: string | null;
  resolution: string | null;
  /**
   * Best first (the compile keeps the space's `episode_highlights` of them and lists them in
   * the order of their events); each event's id is one of the session's customer messages.
   */
  highlights: Highlight[];
  /** What search finds the episode by (README "Search"). The summary when absent. */
  searchable?: string;
}

/** How many of the space's search rows hold each stem: what makes a word rare here (`spaceVocabulary`). */
export interface Vocabulary {
  /** Rows counted. */
  documents: number;
  /** How many of them hold the stem; 0 when unknown. */
  documentFrequency(stem: string): number;
}

/** No counts at all: every stem weighs the same. */
export const EMPTY_VOCABULARY: Vocabulary = { documents: 0, documentFrequency: () => 0 };

/** Digests one session's events, given in `occurred_at` order. Must be deterministic and never throw. */
export interface Summarizer {
  summarize(events: readonly MemoryEvent[], vocabulary: Vocabulary): EpisodeDigest;
}

/**
 * The summary's length at most, in code points (docs/api/memory.md "Episodes"): about what a
 * session's first three turns take on LoCoMo's conversations (503 on average).
 */
export const SUMMARY_BUDGET = 500;
/** A sentence, the request or the resolution at most, in code points. */
const LINE_LIMIT = 200;
/** A summary sentence holds at least this many content words. */
const SUMMARY_WORDS = 2;

interface Turn {
  event: MemoryEvent;
  readings: Reading[];
}

interface Placed {
  turn: number;
  reading: Reading;
}

/**
 * The default summarizer: no model, offline, extractive (docs/api/memory.md "Episodes"). The
 * summary is the session's most informative sentences, both sides', within `SUMMARY_BUDGET`,
 * in the order they were said; the request is the customer's first sentence that asks or wants
 * something; the resolution the agents' last substantive sentence in reply to the customer's
 * last request; highlights the customer's statements about themselves.
 */
export const extractiveSummarizer: Summarizer = {
  summarize(events, vocabulary) {
    const idf = idfOf(vocabulary);
    const turns: Turn[] = events.map((event) => ({ event, readings: spoken(event) ? readingsOfEvent(event) : [] }));
    const requests = placed(turns, isRequest);
    const request = requests[0] ?? placed(turns, (turn, reading) => isBy(turn, "customer") && isSubstantive(reading))[0];
    const requested = request ? requestLine(turns, request) : null;
    const resolution = resolutionOf(turns, requests.at(-1) ?? request);
    const happenings = distinct(events.map(happeningOf));
    const chosen = summarySentences(turns, idf);
    const parts = chosen.map((sentence) => punctuate(line(sentence.reading)));
    const happened = happenings.length > 0 ? `Events: ${happenings.join(", ")}.` : null;
    if (happened !== null && codePoints([...parts, happened].join(" ")) <= SUMMARY_BUDGET) parts.push(happened);
    const summary = parts.length > 0 ? parts.join(" ") : fallbackOf(turns, happened);
    const searchable = distinct([
      ...chosen.map((sentence) => line(sentence.reading)),
      requested,
      resolution,
      happenings.join(", "),
    ]).map(punctuate);
    return {
      summary: cut(summary, SUMMARY_BUDGET),
      requested,
      resolution,
      highlights: highlightsOf(turns, idf),
      searchable: searchable.join(" "),
    };
  },
};

/**
 * The sentences of the summary, in conversation order: those of two content words or more that
 * are not small talk, a deferral, an acknowledgement or a closing, chosen by centrality to the
 * session's content words, covered greedily within the budget (`select`).
 */
function summarySentences(turns: readonly Turn[], idf: (stem: string) => number): Placed[] {
  const substantive = placed(turns, (_, reading) => isSubstantive(reading));
  const candidates = substantive.filter(({ reading }) => reading.stems.length >= SUMMARY_WORDS);
  // A sentence said again (an agent's stock phrase) counts once: repeating it does not make it the matter.
  const said = new Map(substantive.map(({ reading }) => [reading.stems.join(" "), reading.stems]));
  const centroid = centroidOf([...said.values()], idf);
  const sentencesSaying = new Map<string, number>();
  for (const stems of said.values())
    for (const stem of new Set(stems)) sentencesSaying.set(stem, (sentencesSaying.get(stem) ?? 0) + 1);
  const chosen = select(
    candidates.map(({ reading }) => ({
      vector: vectorOf(reading.stems, idf),
      length: codePoints(punctuate(line(reading))),
      // "By the way, the weather is lovely": no word of it said elsewhere in the session.
      aside: reading.stems.every((stem) => (sentencesSaying.get(stem) ?? 0) < 2),
    })),
    centroid,
    SUMMARY_BUDGET,
  );
  return chosen.sort((a, b) => a - b).map((i) => candidates[i] as Placed);
}

/**
 * A summary for a session with no sentence to choose: a sentence of one content word, the
 * system happenings, or what kind of session it was (small talk, messages without text, none).
 */
function fallbackOf(turns: readonly Turn[], happenings: string | null): string {
  const any = placed(turns, (_, reading) => isSubstantive(reading))[0];
  if (any) return punctuate(line(any.reading));
  if (happenings !== null) return happenings;
  if (turns.some(({ readings }) => readings.length > 0)) return "Small talk only.";
  return turns.some(({ event }) => event.kind === "message") ? "Messages without text." : "No messages.";
}

/**
 * A customer's sentence that asks or wants something about the matter: with a content word, or
 * after a sentence with one ("The box was crushed. What can you do?").
 */
function isRequest(turn: Turn, reading: Reading): boolean {
  if (!isBy(turn, "customer") || !reading.request) return false;
  if (isSubstantive(reading)) return true;
  if (reading.smallTalk || reading.closing || reading.acknowledgement || reading.deferral) return false;
  const before = turn.readings[turn.readings.indexOf(reading) - 1];
  return before !== undefined && isSubstantive(before);
}

/**
 * The request as a line: with the sentence before it in its message when it names little itself
 * ("My kettle leaks. Can you help?").
 */
function requestLine(turns: readonly Turn[], request: Placed): string {
  const readings = (turns[request.turn] as Turn).readings;
  const before = readings[readings.indexOf(request.reading) - 1];
  const context = request.reading.stems.length < SUMMARY_WORDS && before !== undefined && isSubstantive(before);
  return cut(context ? `${before.text} ${request.reading.text}` : request.reading.text, LINE_LIMIT);
}

/**
 * The agents' last substantive sentence after the turn of `after` (the customer's last request;
 * with none, after nothing) and before the customer says something else of substance (what
 * agents say then answers that).
 */
function resolutionOf(turns: readonly Turn[], after: Placed | undefined): string | null {
  const from = after === undefined ? 0 : after.turn + 1;
  let last: Reading | undefined;
  for (let i = from; i < turns.length; i++) {
    const turn = turns[i] as Turn;
    if (after !== undefined && isBy(turn, "customer") && turn.readings.some(isSubstantive)) break;
    if (isBy(turn, "ai_agent") || isBy(turn, "human_agent")) last = turn.readings.findLast(isSubstantive) ?? last;
  }
  return last === undefined ? null : line(last);
}

/** Every sentence, in conversation order, that `keep` keeps. */
function placed(turns: readonly Turn[], keep: (turn: Turn, reading: Reading) => boolean): Placed[] {
  const kept: Placed[] = [];
  turns.forEach((turn, index) => {
    for (const reading of turn.readings) if (keep(turn, reading)) kept.push({ turn: index, reading });
  });
  return kept;
}

/** Messages of the customer, of agents or of no one in particular: not a system's. */
const spoken = (event: MemoryEvent) => event.kind === "message" && event.speakerRole !== "system";

const isBy = (turn: Turn, role: MemoryEvent["speakerRole"]) => turn.event.kind === "message" && turn.event.speakerRole === role;

const line = (reading: Reading) => cut(reading.text, LINE_LIMIT);

/** A system event by its canonical type, an action as `operation object_type`; a message is no happening. */
function happeningOf(event: MemoryEvent): string | null {
  if (event.kind === "system_event") return event.canonicalType;
  if (event.kind === "action" && event.action !== null) return `${event.action.operation} ${event.action.objectType}`;
  return null;
}

function distinct(values: readonly (string | null)[]): string[] {
  const seen = new Set<string>();
  for (const value of values) {
    const clean = value === null ? "" : value.replace(/\s+/g, " ").trim();
    if (clean !== "") seen.add(clean);
  }
  return [...seen];
}
