import { z } from "@hono/zod-openapi";
import {
  CHANNELS,
  ChannelSchema,
  IdentifierSchema,
  integer,
  LevelSchema,
  queryInteger,
  TimestampInputSchema,
  TimestampSchema,
  text,
} from "./common";
// Registered schemas are reused as they are: `.openapi()` on them would redefine their component.
import { DerivedSchema, PromiseSchema } from "./context";

const ScalarSchema = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const EventKindSchema = z.enum(["message", "system_event", "action"]);

export const HistoryOpenInputSchema = z
  .strictObject({
    item_id: text(1, 512).openapi({
      description:
        "An `episode_id` (the session), the `open_item_id` of an object, an object change's or a promise's id from an episode's `derived` (the object), or a fact's or question's id (the episode it came from).",
    }),
    handle: IdentifierSchema,
    conversation_id: text(1, 512)
      .optional()
      .openapi({ description: "When given, the item must belong to this conversation (any of its ids), else `404`." }),
    verification: LevelSchema.optional().default("V0"),
  })
  .openapi("HistoryOpenInput", {
    description:
      "`handle` is the customer: an item that is not theirs is `404`, the same as one that does not exist. `verification` (default `V0`) is how far the customer is verified now; message text shows at the space's `history_text_level` (default `V2`) or above, capped by the key's source's verification ceiling.",
  });

const HistoryEntryFields = {
  event_id: z.string(),
  occurred_at: TimestampSchema,
  kind: EventKindSchema,
  channel: z.string().nullable(),
  speaker_role: z.string().nullable(),
  text: z.string().nullable().openapi({ description: "A message's text or transcript; null below the text level." }),
};

const HistoryEntrySchema = z.object(HistoryEntryFields).openapi("HistoryEntry");

const ObjectChangeSchema = z
  .object({
    change_id: z.string(),
    event_id: z.string(),
    occurred_at: TimestampSchema,
    operation: z.string().nullable(),
    canonical_type: z.string().nullable(),
    status: z.string().nullable(),
    attributes: z.record(z.string(), ScalarSchema),
  })
  .openapi("ObjectChange");

export const HistoryItemSchema = z
  .object({
    id: z.string(),
    kind: z.enum(["episode", "object"]),
    profile_id: z.string().openapi({ description: "The profile the item belongs to now (the survivor of any merge)." }),
    summary: z.string(),
    requested: z.string().nullable(),
    promises: z.array(PromiseSchema),
    outcome: z.enum(["resolved", "unresolved", "escalated", "abandoned", "unknown"]),
    resolution: z.string().nullable(),
    derived: z.array(DerivedSchema),
    highlights: z
      .array(
        z.object({
          event_id: z.string().openapi({ description: "The customer's message that says it: always shown." }),
          text: z.string().nullable().openapi({ description: "The sentence as written; null below the text level." }),
        }),
      )
      .openapi({
        description:
          "An episode's statements of the customer about themselves (as in context), in the order said; none for an object.",
      }),
    timeline: z
      .array(HistoryEntrySchema)
      .openapi({ description: "The item's events, oldest first (the latest 500 when it has more)." }),
    text_shown: z.boolean().openapi({ description: "Whether `timeline` carries message text at this level." }),
    episode: z
      .object({
        conversation_id: z.string().nullable(),
        channel: z.string().nullable(),
        started_at: TimestampSchema,
        ended_at: TimestampSchema,
        status: z.enum(["open", "closed"]),
      })
      .nullable(),
    object: z
      .object({
        object_type: z.string(),
        object_id: z.string(),
        status: z.string().nullable(),
        attributes: z.record(z.string(), ScalarSchema),
        open: z.boolean(),
        updated_at: TimestampSchema,
        changes: z.array(ObjectChangeSchema).openapi({ description: "Status and attributes over time, oldest first." }),
      })
      .nullable(),
    as_of: TimestampSchema,
  })
  .openapi("HistoryItem");

const TimelineLimitSchema = integer(1, 100);

export const TimelineInputSchema = z
  .strictObject({
    handle: IdentifierSchema,
    cursor: text(1, 512)
      .optional()
      .openapi({ description: "The `next_cursor` of the previous page; one the service did not issue is `422`." }),
    limit: TimelineLimitSchema.optional().default(50),
    from: TimestampInputSchema.optional(),
    to: TimestampInputSchema.optional(),
    channels: z.array(ChannelSchema).min(1).max(CHANNELS.length).optional(),
  })
  .openapi("TimelineInput", {
    description: "Events with `from <= occurred_at < to`, on any of `channels` when given; newest first.",
  });

const CHANNEL_LIST = new RegExp(`^(${CHANNELS.join("|")})(,(${CHANNELS.join("|")}))*$`);

export const TimelineQuerySchema = z.strictObject({
  cursor: TimelineInputSchema.shape.cursor,
  limit: queryInteger(1, 100).optional().default(50).openapi({ default: 50 }),
  from: TimestampInputSchema.optional(),
  to: TimestampInputSchema.optional(),
  channels: z
    .string()
    .regex(CHANNEL_LIST)
    .optional()
    .openapi({ description: "Channels separated by commas (`whatsapp,email`)." }),
});

const TimelineEventSchema = z
  .object({
    ...HistoryEntryFields,
    conversation_id: z.string().nullable(),
    episode_id: z.string().openapi({ description: "Its session: opens with the history routes." }),
  })
  .openapi("TimelineEvent");

export const TimelinePageSchema = z
  .object({
    profile_id: z.string(),
    data: z.array(TimelineEventSchema),
    next_cursor: z.string().nullable(),
  })
  .openapi("TimelinePage", { description: "A page of a profile's events (across merged profiles), newest first." });

export type HistoryOpenInput = z.infer<typeof HistoryOpenInputSchema>;
export type HistoryItem = z.infer<typeof HistoryItemSchema>;
export type TimelineInput = z.infer<typeof TimelineInputSchema>;
export type TimelineQuery = z.infer<typeof TimelineQuerySchema>;
export type TimelineEvent = z.infer<typeof TimelineEventSchema>;
export type TimelinePage = z.infer<typeof TimelinePageSchema>;
