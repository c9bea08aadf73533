import { z } from "@hono/zod-openapi";
import { IdentifierSchema, integer, TimestampSchema, text, UuidSchema } from "./common";
import { exactlyOne, withRules } from "./shape-rules";

export const ForgetInputSchema = withRules(
  z.strictObject({ handle: IdentifierSchema.optional(), profile_id: UuidSchema.optional() }),
  [exactlyOne(["handle", "profile_id"], "needs_handle_or_profile_id")],
).openapi("ForgetInput", {
  description:
    "The subject to erase: a handle it holds or one of its profile ids (a merged-away id names its survivor). The subject is its profile and every profile merged into it.",
});

const count = (description: string) => integer(0).openapi({ description });

export const ErasureCountsSchema = z
  .strictObject({
    profiles: count("Profiles erased: the subject's and every one merged into it."),
    handles: count("Handles erased."),
    events: count("Items whose content was erased (their tombstones stay), arrivals during the erasure included."),
    mentions: count("Other subjects' items that named one of the subject's handles: the handle taken out of them."),
    sessions: count("Sessions erased with what was compiled from them."),
    memory_items: count("Episodes, derived facts, objects, promises and questions, memory entries, model summaries."),
    search_rows: count("Rows of the search index (both tables) and turns' stems."),
    links: count("Links to or from the subject."),
    suggestions: count("Identity suggestions naming the subject."),
    identity_evidence: count("Traits, co-occurrences, linkage rows and objects the subject owned."),
    served_contexts: count("Context etags served for the subject."),
    kept_answers: count("Kept `Idempotency-Key` answers that held the subject's data."),
    exports: count("Exports of the subject's data: their records and their files."),
    media: count("Media files reserved under the subject or pointed to by its events: their records and their files."),
    import_rows: count("Records of file imports that were stored as the subject's items: the import's note of them."),
  })
  .openapi("ErasureCounts");

export const ReceiptSchema = z
  .strictObject({
    receipt_id: UuidSchema,
    kid: text(1, 128).openapi({ description: "The key that signed it: `GET /v1/privacy/receipt-key?kid=`." }),
    subject_hash: text(1, 128).openapi({
      description:
        "HMAC-SHA256 of the subject's handles under a key of the space's own (base64url): whoever holds the handles can ask the service to match them; nobody learns them from the receipt.",
    }),
    counts: ErasureCountsSchema,
    started_at: TimestampSchema,
    completed_at: TimestampSchema,
    signature: text(1, 256).openapi({
      description: "Ed25519 (base64url) over the receipt without `signature`, in RFC 8785 canonical JSON.",
    }),
  })
  .openapi("ErasureReceipt");

export const ErasureStatusSchema = z
  .strictObject({
    receipt_id: UuidSchema,
    state: z.literal("running"),
    started_at: TimestampSchema,
  })
  .openapi("ErasureStatus", {
    description: "An erasure under way; its receipt is read back at `GET /v1/privacy/receipts/{receipt_id}`.",
  });

export const ReceiptKeySchema = z
  .strictObject({
    kid: text(1, 128),
    jwk: z
      .strictObject({ kty: z.literal("OKP"), crv: z.literal("Ed25519"), x: text(43, 43) })
      .openapi({ description: "The public key (RFC 8037), for WebCrypto `importKey('jwk', jwk, 'Ed25519', ...)`." }),
  })
  .openapi("ReceiptKey");

export const ReceiptKeyQuerySchema = z.strictObject({
  kid: text(1, 128).optional().openapi({ description: "A key that signed earlier receipts; none: the key that signs now." }),
});

export type ForgetInput = z.infer<typeof ForgetInputSchema>;
export type ReceiptKeyView = z.infer<typeof ReceiptKeySchema>;
