import type { Derivation, EpisodeBody, ObjectChange, PromiseBy } from "./derivation";

/** Object statuses after which nothing more is expected. */
const TERMINAL = /^(done|closed|resolved|completed|complete|cancelled|canceled|delivered|refunded|paid|failed|rejected)$/i;
/** System events that close their object (`ticket.closed`). */
const CLOSING = /(^|\.)(closed|resolved|completed|cancelled|canceled|delivered)$/;
const OPENING = /(^|\.)(opened|created)$/;
/** Operations that do not keep a promise about their object. */
const NOT_KEEPING = new Set(["promise", "cancel"]);
const LIST_LIMIT = 20;

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

/**
 * A profile's memory from what its sessions derived (every member's, merged by `occurred_at`)
 * and its latest episodes (DESIGN 3.7, 3.8). `now` decides which promises are broken.
 */
export function memoryOf(derivations: readonly Derivation[], episodes: readonly EpisodeView[], now: number): Memory {
  const sorted = [...derivations].sort((a, b) => a.occurredAt - b.occurredAt || a.seq - b.seq || (a.id < b.id ? -1 : 1));
  const facts = new Map<string, Extract<Derivation, { type: "fact" }>>();
  const objects = new Map<string, { changes: Extract<Derivation, { type: "object" }>[] }>();
  const promises: Extract<Derivation, { type: "promise" }>[] = [];
  const questions: Extract<Derivation, { type: "question" }>[] = [];
  for (const derivation of sorted) {
    switch (derivation.type) {
      case "fact":
        facts.set(derivation.subject, derivation);
        break;
      case "object": {
        const object = objects.get(derivation.subject) ?? { changes: [] };
        object.changes.push(derivation);
        objects.set(derivation.subject, object);
        break;
      }
      case "promise":
        promises.push(derivation);
        break;
      case "question":
        questions.push(derivation);
        break;
    }
  }

  const objectViews = [...objects.entries()].map(([subject, { changes }]) => objectView(subject, changes));
  const openObjects = objectViews.filter((object) => !closed(object, objects.get(objectKeyOf(object))?.changes ?? []));
  const openedObjects = openObjects.filter((object) =>
    (objects.get(objectKeyOf(object))?.changes ?? []).some(
      (change) => change.body.operation === "create" || OPENING.test(change.body.canonical_type ?? ""),
    ),
  );
  const newestFirst = <T>(list: T[], at: (item: T) => string) =>
    list.sort((a, b) => (at(a) < at(b) ? 1 : -1)).slice(0, LIST_LIMIT);

  return {
    facts: [...facts.values()]
      .sort((a, b) => (a.subject < b.subject ? -1 : 1))
      .map((fact) => ({
        fact_id: fact.id,
        key: fact.subject,
        value: fact.body.value,
        valid_from: iso(fact.occurredAt),
        valid_to: null,
        status: "active",
        provenance: { event_id: fact.itemId, source_id: fact.sourceId },
      })),
    open_items: newestFirst(
      [
        ...questions
          .filter((question) => question.body.answered_at === null)
          .map((question) => ({
            open_item_id: question.id,
            kind: "question" as const,
            summary: question.body.text,
            opened_at: iso(question.occurredAt),
          })),
        ...openedObjects.map((object) => ({
          open_item_id: objects.get(objectKeyOf(object))?.changes[0]?.id ?? "",
          kind: "object" as const,
          summary: `${object.object_type} ${object.object_id}: ${object.status ?? "open"}`,
          opened_at: iso(objects.get(objectKeyOf(object))?.changes[0]?.occurredAt ?? 0),
        })),
      ],
      (item) => item.opened_at,
    ),
    promises: newestFirst(
      promises.map((promise) => promiseView(promise, objects.get(promise.subject)?.changes ?? [], now)),
      (promise) => promise.made_at,
    ),
    episodes: [...episodes],
    objects: newestFirst(openObjects, (object) => object.updated_at),
  };
}

const objectKeyOf = (object: ObjectView) => `${object.object_type}\n${object.object_id}`;

function objectView(subject: string, changes: Extract<Derivation, { type: "object" }>[]): ObjectView {
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

function closed(object: ObjectView, changes: Extract<Derivation, { type: "object" }>[]): boolean {
  const last = changes.at(-1);
  if (last?.body.operation === "cancel" || CLOSING.test(last?.body.canonical_type ?? "")) return true;
  return object.status !== null && TERMINAL.test(object.status);
}

/**
 * A promise is kept by a later change of its object (an action other than another promise or
 * a cancel, or a system event) no later than its due time; cancelled by a later cancel; broken
 * once due without either; open until then.
 */
function promiseView(
  promise: Extract<Derivation, { type: "promise" }>,
  changes: Extract<Derivation, { type: "object" }>[],
  now: number,
): PromiseView {
  const due = promise.body.due_at;
  const after = changes.filter(
    (change) => change.occurredAt > promise.occurredAt || (change.occurredAt === promise.occurredAt && change.seq > promise.seq),
  );
  const within = after.filter((change) => due === null || change.occurredAt <= due);
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
