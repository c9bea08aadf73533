import { z } from "@hono/zod-openapi";
import { CATALOG } from "../http/problem";
import {
  AttributesSchema,
  ChannelSchema,
  ExternalIdSchema,
  IdentifierSchema,
  integer,
  LevelSchema,
  SlugSchema,
  TimestampInputSchema,
  text,
  UuidSchema,
} from "./common";
import { MediaRefSchema, Sha256Schema } from "./media";
import { atLeastOne, exactlyOne, together, withRules } from "./shape-rules";

export const MAX_BATCH_ITEMS = 500;
export const MAX_BATCH_BYTES = 2_500_000;
export const MAX_ITEM_BYTES = 1_000_000;

export const IdempotencyKeySchema = text(1, 256);

const ContentFields = {
  type: z.enum(["text", "audio", "image", "video", "file"]).optional(),
  text: z.string().optional(),
  transcript: z.string().optional(),
  media_ref: MediaRefSchema.optional().openapi({
    description: "The `media_ref` of a completed upload of this space (`POST /v1/media/uploads`).",
  }),
  media_sha256: Sha256Schema.optional(),
};

/** A media reference carries the hash of its bytes, and a hash belongs to a reference (docs/api/media.md). */
const mediaWithHash = together<{ media_ref?: string; media_sha256?: string }>(
  ["media_ref", "media_sha256"],
  "media_ref_and_media_sha256_go_together",
);

const ContentSchema = withRules(z.strictObject(ContentFields), [mediaWithHash]).openapi("Content");

/** SPEC shape rule 1: a message needs text, a transcript or a media reference. */
const MessageContentSchema = withRules(z.strictObject(ContentFields), [
  atLeastOne(["text", "transcript", "media_ref"], "message_needs_text_transcript_or_media"),
  mediaWithHash,
]).openapi("MessageContent");

const ActionSchema = z
  .strictObject({
    operation: SlugSchema,
    object_type: SlugSchema,
    object_id: ExternalIdSchema,
    status: text(1, 64).optional(),
    due_at: TimestampInputSchema.optional(),
    attributes: AttributesSchema.optional(),
  })
  .openapi("Action", {
    description: "An operation and object type the source's `act` allows; otherwise the item is `operation_not_allowed`.",
  });

/** SPEC shape rule 3, second half: the `action` block is valid only on `kind: action`. */
const NoActionSchema = z
  .unknown()
  .refine((value) => value === undefined, { params: { rule: "action_block_only_for_action_kind" } })
  .openapi({ not: {}, description: "Only on `kind: action`." });

const SubjectSchema = z.union([z.strictObject({ profile_id: UuidSchema }), z.strictObject({ handle: IdentifierSchema })]);

const ObjectRefSchema = z.strictObject({ object_type: SlugSchema, object_id: ExternalIdSchema });

const eventFields = {
  type: z.literal("event"),
  idempotency_key: IdempotencyKeySchema,
  channel: ChannelSchema.optional(),
  conversation_id: ExternalIdSchema.optional(),
  conversation_aliases: z.array(ExternalIdSchema).max(20).optional(),
  task_id: ExternalIdSchema.optional(),
  handles: z.array(IdentifierSchema).max(50).optional(),
  subject: SubjectSchema.optional(),
  object: ObjectRefSchema.optional(),
  speaker: z.strictObject({ role: z.enum(["customer", "ai_agent", "human_agent", "system"]) }).optional(),
  attributes: AttributesSchema.optional(),
  context_stamp: z.strictObject({ etag: text(1, 256), injected_at: TimestampInputSchema }).optional(),
  occurred_at: TimestampInputSchema,
};

/** SPEC shape rule 4: every event names whom or what it is about. */
const aboutSomeone = atLeastOne<{ handles?: unknown; subject?: unknown; object?: unknown }>(
  ["handles", "subject", "object"],
  "event_needs_handle_subject_or_object",
  "handles",
);

export const MessageEventSchema = withRules(
  z.strictObject({
    ...eventFields,
    kind: z.literal("message").default("message"),
    content: MessageContentSchema,
    canonical_type: SlugSchema.optional(),
    action: NoActionSchema.optional(),
  }),
  [aboutSomeone],
).openapi("MessageEvent", { description: "A message (the default `kind`): needs text, a transcript or a media reference." });

/** SPEC shape rule 2: a system event needs `canonical_type`. */
export const SystemEventSchema = withRules(
  z.strictObject({
    ...eventFields,
    kind: z.literal("system_event"),
    canonical_type: SlugSchema,
    content: ContentSchema.optional(),
    action: NoActionSchema.optional(),
  }),
  [aboutSomeone],
).openapi("SystemEvent", { description: "What a system recorded (`order.shipped`…); `attributes` carry its facts." });

/** SPEC shape rule 3: an action needs the `action` block. */
export const ActionEventSchema = withRules(
  z.strictObject({
    ...eventFields,
    kind: z.literal("action"),
    action: ActionSchema,
    content: ContentSchema.optional(),
    canonical_type: SlugSchema.optional(),
  }),
  [aboutSomeone],
).openapi("ActionEvent", { description: "What an agent did. Needs scope `act` and an operation the source allows." });

export const EventItemSchema = z
  .discriminatedUnion("kind", [MessageEventSchema, SystemEventSchema, ActionEventSchema])
  .openapi("EventItem", {
    description: "An event, by `kind` (`message` when absent).",
    // zod leaves the default kind out of the mapping.
    discriminator: {
      propertyName: "kind",
      mapping: {
        message: "#/components/schemas/MessageEvent",
        system_event: "#/components/schemas/SystemEvent",
        action: "#/components/schemas/ActionEvent",
      },
    },
  });

export const IdentifyItemSchema = z
  .strictObject({
    type: z.literal("identify"),
    idempotency_key: IdempotencyKeySchema,
    handles: z.array(IdentifierSchema).min(2).max(50),
    method: z.enum(["system_import", "otp", "agent", "human", "crm"]),
    subject_kind: z.enum(["person", "account", "partner"]).optional(),
    occurred_at: TimestampInputSchema.optional(),
  })
  .openapi("IdentifyItem", { description: "The handles belong to one subject. Needs scope `identify`." });

/** `conversation_id` or `task_id`, exactly one. */
const oneTarget = exactlyOne<{ conversation_id?: string; task_id?: string }>(
  ["conversation_id", "task_id"],
  "needs_conversation_id_or_task_id",
  "conversation_id",
);

export const VerifyItemSchema = withRules(
  z.strictObject({
    type: z.literal("verify"),
    idempotency_key: IdempotencyKeySchema,
    conversation_id: ExternalIdSchema.optional(),
    task_id: ExternalIdSchema.optional(),
    level: LevelSchema,
    method: SlugSchema,
    handles: z.array(IdentifierSchema).max(50).optional(),
    occurred_at: TimestampInputSchema.optional(),
  }),
  [oneTarget],
).openapi("VerifyItem", {
  description:
    "Raises the verification level of a conversation or task. Needs scope `identify`; a level above the source's ceiling is `verification_not_allowed`.",
});

export const ConversationEndedItemSchema = z
  .strictObject({
    type: z.literal("conversation.ended"),
    idempotency_key: IdempotencyKeySchema,
    conversation_id: ExternalIdSchema,
    occurred_at: TimestampInputSchema,
    reason: text(1, 256).optional(),
  })
  .openapi("ConversationEndedItem");

export const TaskEndedItemSchema = z
  .strictObject({
    type: z.literal("task.ended"),
    idempotency_key: IdempotencyKeySchema,
    task_id: ExternalIdSchema,
    occurred_at: TimestampInputSchema,
  })
  .openapi("TaskEndedItem");

export const HandoffItemSchema = withRules(
  z.strictObject({
    type: z.literal("handoff"),
    idempotency_key: IdempotencyKeySchema,
    conversation_id: ExternalIdSchema.optional(),
    task_id: ExternalIdSchema.optional(),
    to: z.strictObject({
      role: z.enum(["human_agent", "ai_agent"]),
      queue: text(1, 256).optional(),
      agent_id: text(1, 256).optional(),
    }),
    reason: text(1, 256).optional(),
    occurred_at: TimestampInputSchema,
  }),
  [oneTarget],
).openapi("HandoffItem");

export const HeartbeatItemSchema = z
  .strictObject({
    type: z.literal("heartbeat"),
    idempotency_key: IdempotencyKeySchema,
    day: z.iso.date(),
    sent: integer(0),
  })
  .openapi("HeartbeatItem", { description: "What the client sent that UTC day so far." });

/** One item of a batch, by `type`; events again by `kind`. */
export const BatchItemSchema = z
  .discriminatedUnion("type", [
    EventItemSchema,
    IdentifyItemSchema,
    VerifyItemSchema,
    ConversationEndedItemSchema,
    TaskEndedItemSchema,
    HandoffItemSchema,
    HeartbeatItemSchema,
  ])
  .openapi("BatchItem", {
    description:
      "Checked alone. Beyond this schema an item is refused only for what depends on the caller or on size: over 1 MB of JSON (`too_large`), a scope the key lacks (`scope_missing`), an action the source does not allow (`operation_not_allowed`), a `verify` above the source's ceiling (`verification_not_allowed`). An `idempotency_key` already stored is a duplicate, not an error.",
  });

export type BatchItem = z.infer<typeof BatchItemSchema>;
export type EventItem = z.infer<typeof EventItemSchema>;

/** The envelope alone; items are checked one by one afterwards, so one bad item fails only itself. */
export const BatchEnvelopeSchema = z.strictObject({
  items: z.array(z.unknown()).min(1).max(MAX_BATCH_ITEMS),
});

export const BatchRequestSchema = z
  .strictObject({ items: z.array(BatchItemSchema).min(1).max(MAX_BATCH_ITEMS) })
  .openapi("BatchRequest");

export const ITEM_CODES = [...(Object.keys(CATALOG) as (keyof typeof CATALOG)[]), "too_large"] as const;

export const ItemErrorSchema = z.object({
  index: integer(0),
  code: z.enum(ITEM_CODES),
  detail: z.string(),
});

export const BatchAnswerSchema = z
  .object({
    accepted: integer(0),
    duplicates: integer(0),
    errors: z.array(ItemErrorSchema),
  })
  .openapi("BatchAnswer");

export type BatchAnswer = z.infer<typeof BatchAnswerSchema>;
export type ItemError = z.infer<typeof ItemErrorSchema>;
