import type { MemoryEvent } from "./memory-event";

/** One fact about the customer: a snake_case key and its value as written. */
export interface ExtractedFact {
  key: string;
  value: string;
}

/** Reads the facts one event states. Must be deterministic and never throw. */
export interface Extractor {
  extract(event: MemoryEvent): ExtractedFact[];
}

const FACTS_LIMIT = 20;
const VALUE_LIMIT = 500;

/**
 * What a customer's message states, matched on each sentence, case-insensitively unless said:
 *
 * | Pattern                          | Key                         | Example                             |
 * | -------------------------------- | --------------------------- | ----------------------------------- |
 * | `my <thing> is <value>`          | `<thing>` (1 to 3 words)    | "My phone number is +1 555 0100"    |
 * | `I prefer` / `I'd prefer <value>`| `preference`                | "I'd prefer email"                  |
 * | `(please) call me at <value>`    | `contact_time`              | "Please call me at 5pm"             |
 * | `call me <Name>`                 | `preferred_name`            | "Call me Jim" (name capitalized)    |
 * | `I (have) moved to <value>`      | `city`                      | "I've just moved to Lisbon"         |
 *
 * A value runs to the end of its clause: a `,`, `;`, `!`, `?` or a `.` followed by a space.
 */
const PATTERNS: readonly { key: string | null; pattern: RegExp }[] = [
  { key: null, pattern: /\bmy ((?:[\p{L}\p{N}'’-]+ ){0,2}?[\p{L}\p{N}'’-]+) is (.+)/iu },
  { key: "preference", pattern: /\bI(?: would|['’]d)? prefer (.+)/iu },
  { key: "contact_time", pattern: /\b(?:please )?call me at (.+)/iu },
  // Only a capitalized name, so that "call me back" or "call me tomorrow" is no name.
  { key: "preferred_name", pattern: /\b[Cc]all [Mm]e (\p{Lu}[\p{L}'’-]*(?: \p{Lu}[\p{L}'’-]*){0,2})/u },
  { key: "city", pattern: /\bI(?: have|['’]ve)?(?: just| recently)? moved to (.+)/iu },
];

/**
 * The default extractor. A system event or an action states its attributes (the action's after
 * the event's, a key stated twice keeping its first value); a customer's message states what
 * `PATTERNS` find; anyone else's message states nothing.
 */
export const patternExtractor: Extractor = {
  extract(event) {
    const facts =
      event.kind === "message"
        ? event.speakerRole === "customer"
          ? statedFacts(event.text)
          : []
        : attributeFacts([event.attributes, event.kind === "action" ? event.action?.attributes : null]);
    return facts.slice(0, FACTS_LIMIT);
  },
};

function attributeFacts(sources: readonly (MemoryEvent["attributes"] | undefined)[]): ExtractedFact[] {
  const facts = new Map<string, string>();
  for (const attributes of sources) {
    for (const [name, raw] of Object.entries(attributes ?? {})) {
      if (raw === null) continue;
      const key = keyOf(name);
      const value = factValue(String(raw));
      if (key !== "" && value !== "" && !facts.has(key)) facts.set(key, value);
    }
  }
  return [...facts].map(([key, value]) => ({ key, value }));
}

function statedFacts(text: string | null): ExtractedFact[] {
  if (text === null) return [];
  const facts: ExtractedFact[] = [];
  for (const sentence of text.split(/(?<=[.!?])\s+|[\r\n]+/)) {
    const clean = sentence.replace(/\s+/g, " ").trim();
    for (const { key, pattern } of PATTERNS) {
      const match = pattern.exec(clean);
      if (match === null) continue;
      const factKey = key ?? keyOf(match[1] ?? "");
      const value = factValue(clauseOf(match.at(-1) ?? ""));
      if (factKey !== "" && value !== "") facts.push({ key: factKey, value });
    }
    if (facts.length >= FACTS_LIMIT) break;
  }
  return facts;
}

/** "Phone Number" → `phone_number`: lower case, runs of anything else as one `_`, none at the ends. */
function keyOf(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
}

function clauseOf(rest: string): string {
  return rest.split(/[,;!?]|\.(?=\s|$)/)[0] ?? "";
}

/** Trimmed and cut to `VALUE_LIMIT` code points, never inside a surrogate pair. */
function factValue(raw: string): string {
  const points = Array.from(raw.trim());
  return points.length <= VALUE_LIMIT ? raw.trim() : points.slice(0, VALUE_LIMIT).join("").trimEnd();
}
