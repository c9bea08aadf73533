import type { BatchItem } from "../../contract/batch";
import { noteTraits } from "./evidence";
import { heldHandles } from "./handle-store";
import type { Handle } from "./handles";
import { handleTraits, type TraitMapping, traitsOf } from "./linkage/traits";
import type { Resolution } from "./resolution";
import { raiseLevel } from "./verification";

/** An accepted item as identity sees it: the item, its normalized handles, when it happened. */
export interface IdentityInput {
  item: BatchItem;
  handles: Handle[];
  itemId: string;
  occurredAt: number;
}

/**
 * The identity effects of one item, in the batch's transaction (DESIGN 3.5), and the profile the
 * item belongs to (null for items about no one: session ends, handoffs, heartbeats). Throws a
 * Problem for an item that names a profile the space does not have. `traitMapping` is the
 * space's `identity_traits`.
 */
export function applyIdentity(
  sql: SqlStorage,
  resolution: Resolution,
  input: IdentityInput,
  sourceId: string,
  now: number,
  traitMapping: TraitMapping = {},
): string | null {
  const { item, handles, occurredAt } = input;
  switch (item.type) {
    case "event": {
      const subject = item.subject && "profile_id" in item.subject ? item.subject.profile_id : undefined;
      const object = item.object ?? (item.kind === "action" ? item.action : undefined);
      const profileId = resolution.event(
        {
          ...(subject === undefined ? {} : { profileId: subject }),
          handles,
          ...(object ? { object: { type: object.object_type, id: object.object_id } } : {}),
        },
        occurredAt,
      );
      if (item.kind === "system_event") {
        // A record with traits (a CRM's customer) also gives the comparable parts of its handles and
        // of those the profile already holds (written by messages or `identify` before it).
        const traits = traitsOf(item.attributes, traitMapping);
        if (traits.length > 0) {
          const all = new Map(
            [...heldHandles(sql, profileId), ...handles].map((handle) => [`${handle.type} ${handle.value}`, handle]),
          );
          noteTraits(sql, profileId, [...traits, ...handleTraits([...all.values()])], occurredAt);
        }
      }
      return profileId;
    }
    case "identify":
      return resolution.identify(
        handles,
        item.subject_kind ?? "person",
        { method: item.method, itemId: input.itemId, sourceId, personId: null },
        occurredAt,
      );
    case "verify": {
      const target =
        item.conversation_id !== undefined
          ? { kind: "conversation" as const, id: item.conversation_id }
          : { kind: "task" as const, id: item.task_id ?? "" };
      raiseLevel(sql, target, item.level, now);
      return resolution.verify(handles, item.level, occurredAt);
    }
    default:
      return null;
  }
}
