import { z } from "@hono/zod-openapi";
import {
  AttributesSchema,
  ChannelSchema,
  ExternalIdSchema,
  IdentifierSchema,
  LevelSchema,
  SlugSchema,
  TimestampSchema,
  UuidSchema,
} from "./common";

export const MAX_BATCH_ITEMS = 500;
export const MAX_BATCH_BYTES = 2_500_000;
export const MAX_ITEM_BYTES = 1_000_000;

const IdempotencyKeySchema = z.string().min(1).max(256);

const ContentSchema = z.strictObject({
  type: z.enum(["text", "audio", "image", "video", "file"]).optional(),
  text: z.string().optional(),
  transcript: z.string().optional(),
  media_ref: z.string().min(1).max(256).optional(),
  media_sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
});

const ActionSchema = z.strictObject({
  operation: SlugSchema,
  object_type: SlugSchema,
  object_id: ExternalIdSchema,
  status: z.string().min(1).max(64).optional(),
  due_at: TimestampSchema.optional(),
  attributes: AttributesSchema.optional(),
});

const SubjectSchema = z.union([z.strictObject({ profile_id: UuidSchema }), z.strictObject({ handle: IdentifierSchema })]);

const ObjectRefSchema = z.strictObject({ object_type: SlugSchema, object_id: ExternalIdSchema });

const issue = (path: string[], rule: string) => ({ code: "custom" as const, path, message: rule, params: { rule } });

export const EventItemSchema = z
  .strictObject({
    type: z.literal("event"),
    idempotency_key: IdempotencyKeySchema,
    kind: z.enum(["message", "system_event", "action"]).default("message"),
    channel: ChannelSchema.optional(),
    conversation_id: ExternalIdSchema.optional(),
    conversation_aliases: z.array(ExternalIdSchema).max(20).optional(),
    task_id: ExternalIdSchema.optional(),
    handles: z.array(IdentifierSchema).max(50).optional(),
    subject: SubjectSchema.optional(),
    object: ObjectRefSchema.optional(),
    speaker: z.strictObject({ role: z.enum(["customer", "ai_agent", "human_agent", "system"]) }).optional(),
    content: ContentSchema.optional(),
    canonical_type: SlugSchema.optional(),
    action: ActionSchema.optional(),
    attributes: AttributesSchema.optional(),
    context_stamp: z.strictObject({ etag: z.string().min(1).max(256), injected_at: TimestampSchema }).optional(),
    occurred_at: TimestampSchema,
  })
  // SPEC's shape rules, checked once the fields themselves are well formed.
  .check((ctx) => {
    const event = ctx.value;
    const content = event.content;
    if (event.kind === "message" && !(content?.text || content?.transcript || content?.media_ref)) {
      ctx.issues.push({ ...issue(["content"], "message_needs_text_transcript_or_media"), input: content });
    }
    if (event.kind === "system_event" && !event.canonical_type) {
      ctx.issues.push({ ...issue(["canonical_type"], "system_event_needs_canonical_type"), input: undefined });
    }
    if (event.kind === "action" && !event.action) {
      ctx.issues.push({ ...issue(["action"], "action_needs_action_block"), input: undefined });
    }
    if (event.kind !== "action" && event.action) {
      ctx.issues.push({ ...issue(["action"], "action_block_only_for_action_kind"), input: event.action });
    }
    if (!event.handles?.length && !event.subject && !event.object) {
      ctx.issues.push({ ...issue(["handles"], "event_needs_handle_subject_or_object"), input: event.handles });
    }
  })
  .openapi("EventItem");

export const IdentifyItemSchema = z
  .strictObject({
    type: z.literal("identify"),
    idempotency_key: IdempotencyKeySchema,
    handles: z.array(IdentifierSchema).min(2).max(50),
    method: z.enum(["system_import", "otp", "agent", "human", "crm"]),
    subject_kind: z.enum(["person", "account", "partner"]).optional(),
    occurred_at: TimestampSchema.optional(),
  })
  .openapi("IdentifyItem");

/** `conversation_id` or `task_id`, exactly one. */
function oneTarget(ctx: { value: { conversation_id?: string | undefined; task_id?: string | undefined }; issues: unknown[] }) {
  if (Boolean(ctx.value.conversation_id) === Boolean(ctx.value.task_id)) {
    ctx.issues.push({ ...issue(["conversation_id"], "needs_conversation_id_or_task_id"), input: undefined });
  }
}

export const VerifyItemSchema = z
  .strictObject({
    type: z.literal("verify"),
    idempotency_key: IdempotencyKeySchema,
    conversation_id: ExternalIdSchema.optional(),
    task_id: ExternalIdSchema.optional(),
    level: LevelSchema,
    method: SlugSchema,
    handles: z.array(IdentifierSchema).max(50).optional(),
    occurred_at: TimestampSchema.optional(),
  })
  .check(oneTarget)
  .openapi("VerifyItem");

export const ConversationEndedItemSchema = z
  .strictObject({
    type: z.literal("conversation.ended"),
    idempotency_key: IdempotencyKeySchema,
    conversation_id: ExternalIdSchema,
    occurred_at: TimestampSchema,
    reason: z.string().min(1).max(256).optional(),
  })
  .openapi("ConversationEndedItem");

export const TaskEndedItemSchema = z
  .strictObject({
    type: z.literal("task.ended"),
    idempotency_key: IdempotencyKeySchema,
    task_id: ExternalIdSchema,
    occurred_at: TimestampSchema,
  })
  .openapi("TaskEndedItem");

export const HandoffItemSchema = z
  .strictObject({
    type: z.literal("handoff"),
    idempotency_key: IdempotencyKeySchema,
    conversation_id: ExternalIdSchema.optional(),
    task_id: ExternalIdSchema.optional(),
    to: z.strictObject({
      role: z.enum(["human_agent", "ai_agent"]),
      queue: z.string().min(1).max(256).optional(),
      agent_id: z.string().min(1).max(256).optional(),
    }),
    reason: z.string().min(1).max(256).optional(),
    occurred_at: TimestampSchema,
  })
  .check(oneTarget)
  .openapi("HandoffItem");

export const HeartbeatItemSchema = z
  .strictObject({
    type: z.literal("heartbeat"),
    idempotency_key: IdempotencyKeySchema,
    day: z.iso.date(),
    sent: z.number().int().min(0),
  })
  .openapi("HeartbeatItem");

/** Item schemas by `type`: an item is checked against the one its `type` names. */
export const ITEM_SCHEMAS = {
  event: EventItemSchema,
  identify: IdentifyItemSchema,
  verify: VerifyItemSchema,
  "conversation.ended": ConversationEndedItemSchema,
  "task.ended": TaskEndedItemSchema,
  handoff: HandoffItemSchema,
  heartbeat: HeartbeatItemSchema,
} as const;

export type ItemType = keyof typeof ITEM_SCHEMAS;
export type BatchItem = z.infer<(typeof ITEM_SCHEMAS)[ItemType]>;
export type EventItem = z.infer<typeof EventItemSchema>;

export const BatchItemSchema = z
  .union(Object.values(ITEM_SCHEMAS) as unknown as [typeof EventItemSchema, typeof IdentifyItemSchema])
  .openapi("BatchItem");

/** The envelope alone; items are checked one by one afterwards, so one bad item fails only itself. */
export const BatchEnvelopeSchema = z.strictObject({
  items: z.array(z.unknown()).min(1).max(MAX_BATCH_ITEMS),
});

export const BatchRequestSchema = z
  .strictObject({ items: z.array(BatchItemSchema).min(1).max(MAX_BATCH_ITEMS) })
  .openapi("BatchRequest");

export const ItemErrorSchema = z.object({
  index: z.number().int().min(0),
  code: z.string(),
  detail: z.string(),
});

export const BatchAnswerSchema = z
  .object({
    accepted: z.number().int().min(0),
    duplicates: z.number().int().min(0),
    errors: z.array(ItemErrorSchema),
  })
  .openapi("BatchAnswer");

export type BatchAnswer = z.infer<typeof BatchAnswerSchema>;
export type ItemError = z.infer<typeof ItemErrorSchema>;
