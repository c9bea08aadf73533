import type { z } from "@hono/zod-openapi";
import type { AttributesSchema } from "../../contract/common";

/**
 * What suggestions are scored from (DESIGN 3.5): traits that system events carry in their
 * `attributes` (a name, a postal code), and profiles whose handles met in one event.
 */
export type Trait = "name" | "postal_code";

/** Attribute names read as each trait (`customer.updated` from a CRM, an ERP's `zip`). */
const TRAIT_ATTRIBUTES: Record<string, Trait> = {
  name: "name",
  full_name: "name",
  postal_code: "postal_code",
  postcode: "postal_code",
  zip: "postal_code",
};

/** The traits in an event's attributes, normalized so that spellings of one value compare equal. */
export function traitsOf(attributes: z.infer<typeof AttributesSchema> | undefined): [Trait, string][] {
  const out: [Trait, string][] = [];
  for (const [name, value] of Object.entries(attributes ?? {})) {
    const trait = TRAIT_ATTRIBUTES[name];
    if (!trait || typeof value !== "string") continue;
    const normalized =
      trait === "name" ? value.trim().toLowerCase().replace(/\s+/g, " ") : value.replace(/[\s-]+/g, "").toUpperCase();
    if (normalized) out.push([trait, normalized]);
  }
  return out;
}

export function noteTrait(sql: SqlStorage, profileId: string, trait: Trait, value: string): void {
  sql.exec(
    "INSERT INTO profile_traits (profile_id, trait, value) VALUES (?, ?, ?) ON CONFLICT (profile_id, trait) DO UPDATE SET value = excluded.value",
    profileId,
    trait,
    value,
  );
}

/** Two profiles' handles met in one event: counted per pair, the pair in a fixed order. */
export interface CoOccurrence {
  profileA: string;
  profileB: string;
  handleA: string;
  handleB: string;
  count: number;
}

/** Two profiles' handles met (in `count` events): the pair in a fixed order, its first handles kept. */
export function coOccurrence(
  one: { profileId: string; handleId: string },
  other: { profileId: string; handleId: string },
): CoOccurrence {
  const [a, b] = one.profileId < other.profileId ? [one, other] : [other, one];
  return { profileA: a.profileId, profileB: b.profileId, handleA: a.handleId, handleB: b.handleId, count: 1 };
}

/** Adds meetings to their pairs' counts, in one statement. */
export function noteCoOccurrences(sql: SqlStorage, meetings: readonly CoOccurrence[]): void {
  if (meetings.length === 0) return;
  sql.exec(
    `INSERT INTO co_occurrences (profile_a, profile_b, handle_a, handle_b, count)
     SELECT m.value ->> 0, m.value ->> 1, m.value ->> 2, m.value ->> 3, m.value ->> 4 FROM json_each(?) m WHERE true
     ON CONFLICT (profile_a, profile_b) DO UPDATE SET count = count + excluded.count`,
    JSON.stringify(meetings.map((m) => [m.profileA, m.profileB, m.handleA, m.handleB, m.count])),
  );
}
