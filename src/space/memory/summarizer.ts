import type { MemoryEvent } from "./memory-event";

/** What one session came to, in a few extracted sentences. */
export interface EpisodeDigest {
  summary: string;
  requested: string | null;
  resolution: string | null;
  /**
   * What search finds the episode by (README "Search"): the summary's content without its
   * bookkeeping (channels, message counts), which every episode would share. The summary when absent.
   */
  searchable?: string;
}

/** Digests one session's events, given in `occurred_at` order. Must be deterministic and never throw. */
export interface Summarizer {
  summarize(events: readonly MemoryEvent[]): EpisodeDigest;
}

const SUMMARY_LIMIT = 280;
const LINE_LIMIT = 200;

const REQUEST = /\?|\b(i want|i need|i['’]d like|i would like|can you|could you|would you|please)\b/i;

const ROLES = [
  ["customer", "customer"],
  ["ai_agent", "AI agent"],
  ["human_agent", "human agent"],
  ["system", "system"],
  [null, "unattributed"],
] as const;

/**
 * The default summarizer: no model, offline, extractive. The customer's request is the first
 * question or request of their first message; the resolution is the agents' last sentence once
 * the customer has stopped writing.
 */
export const extractiveSummarizer: Summarizer = {
  summarize(events) {
    const requested = requestOf(events);
    const resolution = resolutionOf(events);
    const parts: string[] = [];
    if (requested !== null) parts.push(`Requested: ${requested}`);
    const channels = distinct(events.map((event) => event.channel));
    if (channels.length > 0) parts.push(`Via ${channels.join(", ")}`);
    parts.push(messageCount(events));
    const happenings = distinct(events.map(happeningOf));
    if (happenings.length > 0) parts.push(`Events: ${happenings.join(", ")}`);
    if (resolution !== null) parts.push(`Resolution: ${resolution}`);
    const content = [requested, happenings.join(", "), resolution].filter((part) => part !== null && part !== "");
    return {
      summary: cut(collapse(parts.map(punctuate).join(" ")), SUMMARY_LIMIT),
      requested,
      resolution,
      searchable: collapse(content.map((part) => punctuate(part as string)).join(" ")),
    };
  },
};

function requestOf(events: readonly MemoryEvent[]): string | null {
  const first = events.find((event) => isMessageBy(event, "customer") && sentencesOf(event.text).length > 0);
  if (first === undefined) return null;
  const sentences = sentencesOf(first.text);
  const request = sentences.find((sentence) => REQUEST.test(sentence)) ?? sentences[0];
  return request === undefined ? null : cut(request, LINE_LIMIT);
}

function resolutionOf(events: readonly MemoryEvent[]): string | null {
  const lastCustomer = events.findLastIndex((event) => isMessageBy(event, "customer"));
  for (let i = events.length - 1; i > lastCustomer; i--) {
    const event = events[i];
    if (event === undefined || !(isMessageBy(event, "ai_agent") || isMessageBy(event, "human_agent"))) continue;
    const last = sentencesOf(event.text).at(-1);
    if (last !== undefined) return cut(last, LINE_LIMIT);
  }
  return null;
}

function messageCount(events: readonly MemoryEvent[]): string {
  const messages = events.filter((event) => event.kind === "message");
  if (messages.length === 0) return "No messages";
  const byRole = ROLES.flatMap(([role, label]) => {
    const count = messages.filter((event) => event.speakerRole === role).length;
    return count > 0 ? [`${count} ${label}`] : [];
  });
  return `${messages.length} message${messages.length === 1 ? "" : "s"}: ${byRole.join(", ")}`;
}

/** A system event by its canonical type, an action as `operation object_type`; a message is no happening. */
function happeningOf(event: MemoryEvent): string | null {
  if (event.kind === "system_event") return event.canonicalType;
  if (event.kind === "action" && event.action !== null) return `${event.action.operation} ${event.action.objectType}`;
  return null;
}

function isMessageBy(event: MemoryEvent, role: MemoryEvent["speakerRole"]): boolean {
  return event.kind === "message" && event.speakerRole === role;
}

/** Sentences end at `.`, `!` or `?` followed by a space, and at every line break. */
function sentencesOf(text: string | null): string[] {
  if (text === null) return [];
  return text
    .split(/(?<=[.!?])\s+|\s*[\r\n]+\s*/)
    .map(collapse)
    .filter((sentence) => sentence !== "");
}

function distinct(values: readonly (string | null)[]): string[] {
  const seen = new Set<string>();
  for (const value of values) {
    const clean = value === null ? "" : collapse(value);
    if (clean !== "") seen.add(clean);
  }
  return [...seen];
}

function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function punctuate(part: string): string {
  return /[.!?…]$/.test(part) ? part : `${part}.`;
}

/**
 * At most `limit` code points, so that a surrogate pair is never split; a cut falls between words
 * (unless one word fills the whole limit) and is marked with "…".
 */
function cut(text: string, limit: number): string {
  const points = Array.from(text);
  if (points.length <= limit) return text;
  const head = points.slice(0, limit - 1).join("");
  const space = head.lastIndexOf(" ");
  const wholeWords = points[limit - 1] === " " || space <= 0 ? head : head.slice(0, space);
  return `${wholeWords.replace(/[\s,;:]+$/, "")}…`;
}
