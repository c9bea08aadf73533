import type { Correction } from "./corrections";
import type { Derivation, EpisodeBody, ObjectChange, PromiseBy } from "./derivation";

/** Object statuses after which nothing more is expected. */
const TERMINAL = /^(done|closed|resolved|completed|complete|cancelled|canceled|delivered|refunded|paid|failed|rejected)$/i;
/** System events that close their object (`ticket.closed`). */
const CLOSING = /(^|\.)(closed|resolved|completed|cancelled|canceled|delivered)$/;
const OPENING = /(^|\.)(opened|created)$/;
/** Operations that do not keep a promise about their object. */
const NOT_KEEPING = new Set(["promise", "cancel"]);
/** How many open items, promises and objects a memory lists, newest first. */
export const LIST_LIMIT = 20;
/** How many facts a memory lists: the keys stated last (docs/api/memory.md "What a context holds"). */
export const FACTS_LISTED = 30;
/** How many of its `derived` an episode lists in a context (its history item lists them all). */
export const DERIVED_IN_CONTEXT = 5;
/** The bytes (UTF-8) of highlight text a context's episodes show in all, the newest episode's first. */
export const HIGHLIGHT_BYTES_IN_CONTEXT = 2_000;

export interface Fact {
  fact_id: string;
  key: string;
  value: string;
  valid_from: string;
  valid_to: string | null;
  status: "active" | "superseded" | "retracted" | "corrected";
  provenance: { event_id: string; source_id: string };
}

export interface OpenItem {
  open_item_id: string;
  kind: "question" | "object";
  summary: string;
  opened_at: string;
}

export interface PromiseView {
  promise_id: string;
  by: PromiseBy;
  what: string;
  due_at: string | null;
  status: "open" | "kept" | "broken" | "cancelled";
  made_at: string;
}

export interface ObjectView {
  object_type: string;
  object_id: string;
  status: string | null;
  attributes: Record<string, string | number | boolean | null>;
  updated_at: string;
}

export interface EpisodeView extends EpisodeBody {
  episode_id: string;
  conversation_id: string | null;
  channel: string | null;
  started_at: string;
  ended_at: string;
  status: "open" | "closed";
}

export interface Memory {
  facts: Fact[];
  open_items: OpenItem[];
  promises: PromiseView[];
  episodes: EpisodeView[];
  objects: ObjectView[];
}

const iso = (ms: number) => new Date(ms).toISOString();

type FactDerivation = Extract<Derivation, { type: "fact" }>;
type ObjectDerivation = Extract<Derivation, { type: "object" }>;
type PromiseDerivation = Extract<Derivation, { type: "promise" }>;
type QuestionDerivation = Extract<Derivation, { type: "question" }>;

/**
 * One thing a profile's memory holds, compiled from the derivations that share its `subject`
 * (a fact's key, an object's `type\nid`, a question's id): a fact, an object, a promise about
 * an object, or a question. The compiler keeps these per profile and recompiles only the
 * subjects a change touched; `memoryFrom` lists them.
 */
export type MemoryEntry = EntryBase &
  (
    | { kind: "fact"; view: Fact }
    | { kind: "object"; view: ObjectView }
    | { kind: "promise"; view: PromiseView }
    | { kind: "question"; view: null }
  );

interface EntryBase {
  subject: string;
  /** Unique within its kind and subject: the subject itself, or a promise's id. */
  key: string;
  /** When it was stated, changed or made: what its list is ordered by, newest first. */
  at: number;
  /** Whether its list shows it: a fact unless retracted, every promise, an object while it is open. */
  listed: boolean;
  openItem: OpenItem | null;
}

const byOccurrence = (a: Derivation, b: Derivation) => a.occurredAt - b.occurredAt || a.seq - b.seq || (a.id < b.id ? -1 : 1);

/**
 * A fact key's active value: the one stated last by `(occurred_at, seq)`, as feedback left it
 * (`corrections` by statement id). A retracted statement takes its key out of the memory until
 * a newer statement; a corrected one shows the corrected value with its provenance.
 */
export function factEntry(key: string, statements: readonly FactDerivation[], corrections: Corrections): MemoryEntry | null {
  const fact = [...statements].sort(byOccurrence).at(-1);
  if (!fact) return null;
  const correction = corrections.get(fact.id);
  const retracted = correction?.action === "retract_fact";
  const corrected = correction?.action === "correct_fact" && correction.value !== null;
  return {
    kind: "fact",
    subject: key,
    key,
    at: fact.occurredAt,
    listed: !retracted,
    openItem: null,
    view: {
      fact_id: fact.id,
      key,
      value: corrected ? (correction.value as string) : fact.body.value,
      valid_from: iso(fact.occurredAt),
      valid_to: null,
      status: retracted ? "retracted" : corrected ? "corrected" : "active",
      provenance: { event_id: fact.itemId, source_id: fact.sourceId },
    },
  };
}

/** Feedback by target id (a fact statement, an open item): see `corrections.ts`. */
export type Corrections = ReadonlyMap<string, Correction>;

const resolved = (corrections: Corrections, openItemId: string) => corrections.get(openItemId)?.action === "resolve_open_item";

/** An object from its changes, and the promises made about it (whose status its changes decide). */
export function objectEntries(
  subject: string,
  changes: readonly ObjectDerivation[],
  promises: readonly PromiseDerivation[],
  now: number,
  corrections: Corrections,
): MemoryEntry[] {
  const ordered = [...changes].sort(byOccurrence);
  const first = ordered[0];
  const last = ordered.at(-1);
  const entries: MemoryEntry[] = promises.map((promise) => {
    const view = promiseView(promise, ordered, now);
    return { kind: "promise", subject, key: promise.id, at: promise.occurredAt, listed: true, openItem: null, view };
  });
  if (!first || !last) return entries;
  const view = objectView(subject, ordered);
  const open = !closed(view, last);
  const opened = ordered.some((change) => change.body.operation === "create" || OPENING.test(change.body.canonical_type ?? ""));
  entries.push({
    kind: "object",
    subject,
    key: subject,
    at: last.occurredAt,
    listed: open,
    view,
    openItem:
      // Resolved by its id (its first change's) or by any other of its changes' (history lists them).
      open && opened && !ordered.some((change) => resolved(corrections, change.id))
        ? {
            open_item_id: first.id,
            kind: "object",
            summary: `${view.object_type} ${view.object_id}: ${view.status ?? "open"}`,
            opened_at: iso(first.occurredAt),
          }
        : null,
  });
  return entries;
}

/** A customer's question: an open item until an agent answered it in its session, or feedback resolved it. */
export function questionEntry(question: QuestionDerivation, corrections: Corrections): MemoryEntry {
  return {
    kind: "question",
    subject: question.id,
    key: question.id,
    at: question.occurredAt,
    listed: false,
    view: null,
    openItem:
      question.body.answered_at === null && !resolved(corrections, question.id)
        ? { open_item_id: question.id, kind: "question", summary: question.body.text, opened_at: iso(question.occurredAt) }
        : null,
  };
}

/** Every entry of a profile's memory, compiled from all its derivations at once. */
export function memoryEntries(derivations: readonly Derivation[], now: number, corrections: Corrections): MemoryEntry[] {
  const facts = new Map<string, FactDerivation[]>();
  const objects = new Map<string, { changes: ObjectDerivation[]; promises: PromiseDerivation[] }>();
  const entries: MemoryEntry[] = [];
  const objectOf = (subject: string) => {
    const object = objects.get(subject) ?? { changes: [], promises: [] };
    objects.set(subject, object);
    return object;
  };
  for (const derivation of derivations) {
    switch (derivation.type) {
      case "fact":
        facts.set(derivation.subject, [...(facts.get(derivation.subject) ?? []), derivation]);
        break;
      case "object":
        objectOf(derivation.subject).changes.push(derivation);
        break;
      case "promise":
        objectOf(derivation.subject).promises.push(derivation);
        break;
      case "question":
        entries.push(questionEntry(derivation, corrections));
        break;
    }
  }
  for (const [key, statements] of facts) {
    const entry = factEntry(key, statements, corrections);
    if (entry) entries.push(entry);
  }
  for (const [subject, { changes, promises }] of objects)
    entries.push(...objectEntries(subject, changes, promises, now, corrections));
  return entries;
}

/** Newest first, then by key: the same order the compiler's indexed reads give. */
const newestFirst = (a: { at: number; key: string }, b: { at: number; key: string }) =>
  b.at - a.at || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/**
 * A profile's memory as context answers it (DESIGN 3.7, 3.8): the `FACTS_LISTED` active facts
 * stated last, by key; the newest `LIST_LIMIT` open items, promises and open objects; its latest
 * episodes within the context's budget. Entries beyond those limits may be left out of `entries`
 * without changing the answer.
 */
export function memoryFrom(entries: readonly MemoryEntry[], episodes: readonly EpisodeView[]): Memory {
  const facts: Fact[] = [];
  const objects: (MemoryEntry & { kind: "object" })[] = [];
  const promises: (MemoryEntry & { kind: "promise" })[] = [];
  const openItems: { at: number; key: string; item: OpenItem }[] = [];
  for (const entry of entries) {
    if (entry.openItem) openItems.push({ at: Date.parse(entry.openItem.opened_at), key: entry.key, item: entry.openItem });
    if (entry.kind === "fact" && entry.listed) facts.push(entry.view);
    else if (entry.kind === "object" && entry.listed) objects.push(entry);
    else if (entry.kind === "promise") promises.push(entry);
  }
  return {
    facts: facts
      .sort((a, b) => b.valid_from.localeCompare(a.valid_from) || (a.key < b.key ? -1 : 1))
      .slice(0, FACTS_LISTED)
      .sort((a, b) => (a.key < b.key ? -1 : 1)),
    open_items: openItems
      .sort(newestFirst)
      .slice(0, LIST_LIMIT)
      .map(({ item }) => item),
    promises: promises
      .sort(newestFirst)
      .slice(0, LIST_LIMIT)
      .map(({ view }) => view),
    episodes: episodesInContext(episodes),
    objects: objects
      .sort(newestFirst)
      .slice(0, LIST_LIMIT)
      .map(({ view }) => view),
  };
}

/**
 * Episodes (newest first) as a context shows them, within its byte budget: each with its first
 * `DERIVED_IN_CONTEXT` derived, and highlights while their text fits `HIGHLIGHT_BYTES_IN_CONTEXT`
 * (the newest episodes' first; an older episode's that do not fit are left out).
 */
function episodesInContext(episodes: readonly EpisodeView[]): EpisodeView[] {
  let left = HIGHLIGHT_BYTES_IN_CONTEXT;
  return episodes.map((episode) => {
    const highlights: EpisodeView["highlights"] = [];
    // Stored before highlights were kept: none.
    for (const highlight of episode.highlights ?? []) {
      const bytes = utf8Length(highlight.text);
      if (bytes > left) {
        left = 0;
        break;
      }
      left -= bytes;
      highlights.push(highlight);
    }
    return { ...episode, derived: episode.derived.slice(0, DERIVED_IN_CONTEXT), highlights };
  });
}

/** UTF-8 bytes of a text, without encoding it. */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit < 0xdc00) {
      bytes += 4;
      i++; // the pair's low half
    } else bytes += 3;
  }
  return bytes;
}

/**
 * A profile's memory from what its sessions derived (every member's, merged by `occurred_at`)
 * and its latest episodes. `now` decides which promises are broken.
 */
export function memoryOf(
  derivations: readonly Derivation[],
  episodes: readonly EpisodeView[],
  now: number,
  corrections: Corrections = new Map(),
): Memory {
  return memoryFrom(memoryEntries(derivations, now, corrections), episodes);
}

function objectView(subject: string, changes: readonly ObjectDerivation[]): ObjectView {
  const [objectType = "", objectId = ""] = subject.split("\n");
  let status: string | null = null;
  const attributes: ObjectChange["attributes"] = {};
  for (const change of changes) {
    status = change.body.status ?? status;
    Object.assign(attributes, change.body.attributes);
  }
  return {
    object_type: objectType,
    object_id: objectId,
    status,
    attributes,
    updated_at: iso(changes.at(-1)?.occurredAt ?? 0),
  };
}

function closed(object: ObjectView, last: ObjectDerivation): boolean {
  if (closingChange(last) !== null) return true;
  return object.status !== null && TERMINAL.test(object.status);
}

/** What a change closes its object with by itself: a `cancel`, or a closing system event's type; null for any other. */
export function closingChange(change: ObjectDerivation): string | null {
  if (change.body.operation === "cancel") return "cancel";
  const type = change.body.canonical_type ?? "";
  return CLOSING.test(type) ? type : null;
}

/**
 * A promise is kept by a later change of its object (an action other than another promise or
 * a cancel, or a system event) no later than its due time; cancelled by a later cancel; broken
 * once due without either; open until then.
 */
function promiseView(promise: PromiseDerivation, changes: readonly ObjectDerivation[], now: number): PromiseView {
  const due = promise.body.due_at;
  const within = changes.filter(
    (change) =>
      (change.occurredAt > promise.occurredAt || (change.occurredAt === promise.occurredAt && change.seq > promise.seq)) &&
      (due === null || change.occurredAt <= due),
  );
  const cancelled = within.some((change) => change.body.operation === "cancel");
  const kept = within.some((change) => !NOT_KEEPING.has(change.body.operation ?? ""));
  const status = kept ? "kept" : cancelled ? "cancelled" : due !== null && due <= now ? "broken" : "open";
  return {
    promise_id: promise.id,
    by: promise.body.by,
    what: promise.body.what,
    due_at: due === null ? null : iso(due),
    status,
    made_at: iso(promise.occurredAt),
  };
}
