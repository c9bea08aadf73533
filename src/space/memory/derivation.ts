import type { Extractor } from "./extractor";
import type { MemoryEvent } from "./memory-event";
import { stableId } from "./stable-id";
import type { Summarizer } from "./summarizer";

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

const AGENTS = new Set(["ai_agent", "human_agent"]);
const QUESTION = /\?\s*$|\?\s/;
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
): SessionMemory {
  const derivations: Derivation[] = [];
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
    if (event.kind === "message" && event.speakerRole === "customer" && event.text && QUESTION.test(event.text)) {
      const answer = events.slice(index + 1).find((later) => later.kind === "message" && AGENTS.has(later.speakerRole ?? ""));
      derivations.push({
        ...base,
        type: "question",
        id: stableId(event.itemId, "question"),
        subject: "question",
        body: { text: cut(event.text, 200), answered_at: answer?.occurredAt ?? null },
      });
    }
    if (event.speakerRole === "ai_agent") aiSpoke = true;
    if (event.speakerRole === "human_agent" && aiSpoke && handoffAt === null) handoffAt = event.occurredAt;
  });

  const digest = parts.summarizer.summarize(events);
  const promises = derivations.filter((d) => d.type === "promise").map((d) => d.id);
  return {
    episode: {
      summary: digest.summary,
      requested: digest.requested,
      outcome: outcomeOf(events, derivations, { ...session, handoffAt }),
      resolution: digest.resolution,
      promises,
      derived: derivations.map((d) => ({ type: d.type === "question" ? "open_item" : d.type, id: d.id, summary: summaryOf(d) })),
    },
    searchable: digest.searchable ?? digest.summary,
    derivations,
    handoffAt,
  };
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
