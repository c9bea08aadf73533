import type { Extractor } from "./extractor";
import { HIGHLIGHT_LIMIT } from "./highlights";
import type { MemoryEvent } from "./memory-event";
import { collapse, cut as cutWords, headOf } from "./sentences";
import { isSubstantive, type Reading, readingsOfEvent, signsOff } from "./speech-acts";
import { stableId } from "./stable-id";
import { EMPTY_VOCABULARY, type Highlight, type Summarizer, type Vocabulary } from "./summarizer";

/** What the compiler keeps of one event: a fact value, an object's change, a promise, a customer's question. */
export type Derivation =
  | (DerivationBase & { type: "fact"; body: { value: string } })
  | (DerivationBase & { type: "object"; body: ObjectChange })
  | (DerivationBase & { type: "promise"; body: { by: PromiseBy; what: string; due_at: number | null } })
  | (DerivationBase & { type: "question"; body: { text: string; answered_at: number | null } });

interface DerivationBase {
  id: string;
  itemId: string;
  sourceId: string;
  /** A fact's key; an object's (and a promise's) `type\nid`; a question's session. */
  subject: string;
  occurredAt: number;
  seq: number;
}

export interface ObjectChange {
  operation: string | null;
  canonical_type: string | null;
  status: string | null;
  attributes: Record<string, string | number | boolean | null>;
}

export type PromiseBy = "customer" | "agent" | "company";

export type Outcome = "resolved" | "unresolved" | "escalated" | "abandoned" | "unknown";

export interface EpisodeBody {
  summary: string;
  requested: string | null;
  outcome: Outcome;
  resolution: string | null;
  promises: string[];
  derived: { type: "fact" | "open_item" | "promise" | "object"; id: string; summary: string }[];
  /** The customer's statements worth keeping, in the order of their events (`episode_highlights` at most). */
  highlights: { event_id: string; text: string }[];
}

export interface SessionFacts {
  open: boolean;
  handoffAt: number | null;
}

/** What one session compiles to: its episode, what its events derive, and when a person took over from an AI agent. */
export interface SessionMemory {
  episode: EpisodeBody;
  /** The episode's text for search. */
  searchable: string;
  derivations: Derivation[];
  handoffAt: number | null;
}

/** What a compile takes from the space: its words' frequencies, and how many highlights an episode keeps. */
export interface CompileSettings {
  vocabulary: Vocabulary;
  highlights: number;
}

/** `episode_highlights` when the space sets none. */
export const DEFAULT_HIGHLIGHTS = 5;
const DEFAULTS: CompileSettings = { vocabulary: EMPTY_VOCABULARY, highlights: DEFAULT_HIGHLIGHTS };

const AGENTS = new Set(["ai_agent", "human_agent"]);
/** How many of the questions waiting an answer is matched against by its words. */
const QUESTIONS_MATCHED = 50;
const ESCALATION = /(^|\.)escalated$/;
const RESOLUTION = /(^|\.)(resolved|closed|completed)$/;

export const objectKey = (objectType: string, objectId: string) => `${objectType}\n${objectId}`;

/**
 * Compiles one session from its events in `occurred_at` order (DESIGN 3.7). A pure function of
 * the events: the same events give the same memory whatever order they arrived in.
 */
export function compileSession(
  events: readonly MemoryEvent[],
  session: SessionFacts,
  parts: { summarizer: Summarizer; extractor: Extractor },
  settings: CompileSettings = DEFAULTS,
): SessionMemory {
  const derivations: Derivation[] = [];
  const answers = questionAnswers(events);
  let aiSpoke = false;
  let handoffAt = session.handoffAt;
  events.forEach((event, index) => {
    const base = { itemId: event.itemId, sourceId: event.sourceId, occurredAt: event.occurredAt, seq: event.seq };
    // One value per key and event: a message that says it twice means the last.
    const facts = new Map(parts.extractor.extract(event).map((fact) => [fact.key, fact]));
    for (const fact of facts.values()) {
      derivations.push({
        ...base,
        type: "fact",
        id: stableId(event.itemId, "fact", fact.key),
        subject: fact.key,
        body: { value: fact.value },
      });
    }
    const target = event.action ?? event.object;
    if (target && (event.kind === "action" || event.kind === "system_event")) {
      const subject = objectKey(target.objectType, target.objectId);
      derivations.push({
        ...base,
        type: "object",
        id: stableId(event.itemId, "object"),
        subject,
        body: {
          operation: event.action?.operation ?? null,
          canonical_type: event.canonicalType,
          status: event.action?.status ?? statusOf(event.attributes),
          attributes: { ...event.attributes, ...event.action?.attributes },
        },
      });
      if (event.action?.operation === "promise") {
        derivations.push({
          ...base,
          type: "promise",
          id: stableId(event.itemId, "promise"),
          subject,
          body: {
            by: promiseBy(event.speakerRole),
            what: `${event.action.objectType} ${event.action.objectId}`,
            due_at: event.action.dueAt,
          },
        });
      }
    }
    if (answers.has(index)) {
      const asked = readingsOfEvent(event).filter(isAsked);
      derivations.push({
        ...base,
        type: "question",
        id: stableId(event.itemId, "question"),
        subject: "question",
        body: { text: cut(asked.map((reading) => reading.text).join(" "), 200), answered_at: answers.get(index) ?? null },
      });
    }
    if (event.speakerRole === "ai_agent") aiSpoke = true;
    if (event.speakerRole === "human_agent" && aiSpoke && handoffAt === null) handoffAt = event.occurredAt;
  });

  const digest = parts.summarizer.summarize(events, settings.vocabulary);
  const promises = derivations.filter((d) => d.type === "promise").map((d) => d.id);
  return {
    episode: {
      summary: digest.summary,
      requested: digest.requested,
      outcome: outcomeOf(events, derivations, { ...session, handoffAt }),
      resolution: digest.resolution,
      promises,
      derived: derivations.map((d) => ({ type: d.type === "question" ? "open_item" : d.type, id: d.id, summary: summaryOf(d) })),
      highlights: highlightsKept(events, digest.highlights, settings.highlights),
    },
    searchable: digest.searchable ?? digest.summary,
    derivations,
    handoffAt,
  };
}

/**
 * A customer's question that asks about the matter: not small talk ("how are you?", "are you
 * there?"), with a content word.
 */
const isAsked = (reading: Reading) => reading.question && !reading.smallTalk && reading.stems.length > 0;

/**
 * When each customer question was answered (by the index of its message; null while open): by a
 * later agent message that says something (a sentence that is no question, deferral ("let me
 * check", "one moment"), acknowledgement ("ok", "noted") or closing ("anything else?")), or by
 * the session's resolution (a system event `*.resolved|closed|completed`). An answer answers the
 * questions waiting that share a content word with it ("Can I pay with PayPal?" answered after
 * "Do you price match?" was put off leaves the latter open); sharing none, the first question of
 * those the customer asked since the last answer (answers come in the order asked), unless they
 * have said something else since (the answer is then to that).
 */
function questionAnswers(events: readonly MemoryEvent[]): Map<number, number | null> {
  const answered = new Map<number, number | null>();
  let waiting: { index: number; stems: ReadonlySet<string>; passed: boolean }[] = [];
  let agentAnswered = false;
  events.forEach((event, index) => {
    if (event.kind === "system_event" && RESOLUTION.test(event.canonicalType ?? "")) {
      for (const question of waiting) answered.set(question.index, event.occurredAt);
      waiting = [];
    }
    if (event.kind !== "message") return;
    const readings = readingsOfEvent(event);
    if (event.speakerRole === "customer") {
      // The customer goes on after an answer, or says something else: what waits was passed over.
      if (agentAnswered || readings.some((reading) => isSubstantive(reading) && !reading.question)) {
        for (const question of waiting) question.passed = true;
      }
      agentAnswered = false;
      if (readings.some(isAsked)) {
        answered.set(index, null);
        waiting.push({ index, stems: new Set(readings.flatMap((reading) => reading.stems)), passed: false });
      }
      return;
    }
    if (!AGENTS.has(event.speakerRole ?? "")) return;
    // Put off past this conversation: only an answer that names it answers it now.
    if (readings.some((reading) => reading.later)) for (const question of waiting) question.passed = true;
    const said = new Set(readings.filter((reading) => isSubstantive(reading) && !reading.question).flatMap((r) => r.stems));
    if (said.size === 0) return;
    agentAnswered = true;
    // The latest questions only: a session of thousands stays linear, and one older than those stays open.
    const matched = waiting.slice(-QUESTIONS_MATCHED).filter((question) => [...question.stems].some((stem) => said.has(stem)));
    const next = waiting.find((question) => !question.passed);
    const done = new Set(next ? [...matched, next] : matched);
    for (const question of done) answered.set(question.index, event.occurredAt);
    waiting = waiting.filter((question) => !done.has(question));
  });
  return answered;
}

/**
 * The digest's first `limit` highlights of the session's customer messages (a model's could name
 * another event), in the order of their events.
 */
function highlightsKept(
  events: readonly MemoryEvent[],
  highlights: readonly Highlight[],
  limit: number,
): EpisodeBody["highlights"] {
  const order = new Map<string, number>();
  events.forEach((event, index) => {
    if (event.kind === "message" && event.speakerRole === "customer") order.set(event.itemId, index);
  });
  return highlights
    .filter((highlight) => order.has(highlight.eventId))
    .slice(0, limit)
    .map((highlight, rank) => ({ highlight, rank }))
    .sort((a, b) => (order.get(a.highlight.eventId) ?? 0) - (order.get(b.highlight.eventId) ?? 0) || a.rank - b.rank)
    .map(({ highlight }) => ({ event_id: highlight.eventId, text: cutWords(collapse(highlight.text), HIGHLIGHT_LIMIT) }));
}

/**
 * How a session ended (README "Memory"): escalated when a person took over or a system said
 * so; resolved when a system said so or the agents answered every question; while open, unknown;
 * closed with the customer's last message unanswered, abandoned; with a question unanswered,
 * unresolved. The customer's thanks, goodbyes and "ok"s at the end (`signsOff`) are no message
 * left unanswered.
 */
function outcomeOf(events: readonly MemoryEvent[], derivations: readonly Derivation[], session: SessionFacts): Outcome {
  if (session.handoffAt !== null || events.some((event) => ESCALATION.test(event.canonicalType ?? ""))) return "escalated";
  if (events.some((event) => RESOLUTION.test(event.canonicalType ?? ""))) return "resolved";
  if (session.open) return "unknown";
  const messages = events.filter((event) => event.kind === "message");
  const last = messages.findLast((event) => event.speakerRole !== "customer" || !signsOff(readingsOfEvent(event)));
  if (!last) return "unknown";
  if (last.speakerRole === "customer") return "abandoned";
  if (derivations.some((d) => d.type === "question" && d.body.answered_at === null)) return "unresolved";
  return messages.some((event) => AGENTS.has(event.speakerRole ?? "")) ? "resolved" : "unknown";
}

function statusOf(attributes: MemoryEvent["attributes"]): string | null {
  const status = attributes?.status;
  return typeof status === "string" ? status : null;
}

function promiseBy(role: MemoryEvent["speakerRole"]): PromiseBy {
  if (role === "customer") return "customer";
  return role === "system" ? "company" : "agent";
}

function summaryOf(derivation: Derivation): string {
  switch (derivation.type) {
    case "fact":
      return `${derivation.subject}: ${cut(derivation.body.value, 120)}`;
    case "object":
      return `${derivation.subject.replace("\n", " ")}: ${derivation.body.operation ?? derivation.body.canonical_type ?? "changed"}`;
    case "promise":
      return `promise by ${derivation.body.by}: ${derivation.body.what}`;
    case "question":
      return `asked: ${derivation.body.text}`;
  }
}

function cut(text: string, max: number): string {
  const clean = collapse(text);
  return headOf(clean, max).length === clean.length ? clean : `${headOf(clean, max - 1)}…`;
}
