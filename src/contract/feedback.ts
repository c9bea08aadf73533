import { z } from "@hono/zod-openapi";
import { BatchEnvelopeSchema, IdempotencyKeySchema, MAX_BATCH_ITEMS } from "./batch";
import { TimestampInputSchema, text } from "./common";

const IdSchema = text(1, 512);
const OutcomeSchema = z.enum(["resolved", "unresolved", "escalated", "abandoned", "unknown"]);

const common = {
  idempotency_key: IdempotencyKeySchema,
  occurred_at: TimestampInputSchema.optional().openapi({ description: "When it was decided; the arrival time if omitted." }),
};

export const FeedbackItemSchema = z
  .discriminatedUnion("action", [
    z.strictObject({
      action: z.literal("retract_fact"),
      fact_id: IdSchema.openapi({ description: "A `fact_id` of the context answer." }),
      ...common,
    }),
    z.strictObject({
      action: z.literal("correct_fact"),
      fact_id: IdSchema,
      value: text(1, 500),
      ...common,
    }),
    z.strictObject({
      action: z.literal("resolve_open_item"),
      open_item_id: IdSchema.openapi({ description: "An `open_item_id` of the context answer." }),
      ...common,
    }),
    z.strictObject({
      action: z.literal("conversation_outcome"),
      conversation_id: IdSchema,
      value: OutcomeSchema,
      ...common,
    }),
  ])
  .openapi("FeedbackItem", {
    description:
      "Checked alone: an item without the fields of its action is refused with `invalid_input` and not stored; an id that names nothing of this space is `not_found`. Deduplicated by `idempotency_key` like batch items.",
  });

export type FeedbackItem = z.infer<typeof FeedbackItemSchema>;

/** The envelope is checked first, as a batch's: items are then checked one by one. */
export const FeedbackEnvelopeSchema = BatchEnvelopeSchema;

export const FeedbackRequestSchema = z
  .strictObject({ items: z.array(FeedbackItemSchema).min(1).max(MAX_BATCH_ITEMS) })
  .openapi("FeedbackRequest");
