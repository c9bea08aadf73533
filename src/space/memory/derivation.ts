import type { Extractor } from "./extractor";
import { HIGHLIGHT_LIMIT } from "./highlights";
import type { MemoryEvent } from "./memory-event";
import { collapse, cut as cutWords } from "./sentences";
import { isSubstantive, type Reading, readingsOfEvent } from "./speech-acts";
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
export const DEFAULT_HIGHLIGHTS = 3;
const DEFAULTS: CompileSettings = { vocabulary: EMPTY_VOCABULARY, highlights: DEFAULT_HIGHLIGHTS };

const AGENTS = new Set(["ai_agent", "human_agent"]);
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
  const answeredAt = answersAfter(events);
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
    const asked = event.kind === "message" && event.speakerRole === "customer" ? readingsOfEvent(event).filter(isAsked) : [];
    if (asked.length > 0) {
      derivations.push({
        ...base,
        type: "question",
        id: stableId(event.itemId, "question"),
        subject: "question",
        body: { text: cut(asked.map((reading) => reading.text).join(" "), 200), answered_at: answeredAt[index + 1] ?? null },
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
 * For each position, when the first turn from there on answered the customer (null when none
 * did): an agent's message with a substantive sentence (not only "let me check", "one moment",
 * "ok" or "anything else?"), or the session's resolution (a system event `*.resolved|closed|completed`).
 */
function answersAfter(events: readonly MemoryEvent[]): (number | null)[] {
  const answeredAt: (number | null)[] = new Array(events.length + 1).fill(null);
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i] as MemoryEvent;
    const answers =
      (event.kind === "message" && AGENTS.has(event.speakerRole ?? "") && readingsOfEvent(event).some(isSubstantive)) ||
      (event.kind === "system_event" && RESOLUTION.test(event.canonicalType ?? ""));
    answeredAt[i] = answers ? event.occurredAt : (answeredAt[i + 1] ?? null);
  }
  return answeredAt;
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
 * unresolved.
 */
function outcomeOf(events: readonly MemoryEvent[], derivations: readonly Derivation[], session: SessionFacts): Outcome {
  if (session.handoffAt !== null || events.some((event) => ESCALATION.test(event.canonicalType ?? ""))) return "escalated";
  if (events.some((event) => RESOLUTION.test(event.canonicalType ?? ""))) return "resolved";
  if (session.open) return "unknown";
  const messages = events.filter((event) => event.kind === "message");
  const last = messages.at(-1);
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
  const clean = text.replace(/\s+/g, " ").trim();
  const points = [...clean];
  return points.length <= max ? clean : `${points.slice(0, max - 1).join("")}…`;
}
