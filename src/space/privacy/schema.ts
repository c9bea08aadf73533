import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * Erasures (`POST /v1/forget`, docs/api/privacy.md): one row per request, with what it erased so
 * far (`counts`, JSON) and, once done, the signed receipt (`receipt`, JSON). Ids, times and
 * counts only: never a handle or a text. Owned by `erasures.ts`.
 */
export const erasures = sqliteTable("erasures", {
  receiptId: text("receipt_id").primaryKey(),
  /** `running` (slices under way), `signing` (erased, receipt not signed yet), `completed`. */
  state: text("state").notNull(),
  counts: text("counts").notNull(),
  startedAt: integer("started_at").notNull(),
  completedAt: integer("completed_at"),
  receipt: text("receipt"),
});

/**
 * The profiles an erasure under way reaches (the subject's root and every profile merged into
 * it): reads of them are `404` from the request on, and work that would write them again (a
 * compile, a late model answer) skips them. Deleted when the erasure completes. Owned by `erasures.ts`.
 */
export const erasureProfiles = sqliteTable(
  "erasure_profiles",
  {
    profileId: text("profile_id").primaryKey(),
    receiptId: text("receipt_id").notNull(),
  },
  (table) => [index("erasure_profiles_receipt").on(table.receiptId)],
);

/**
 * The subject's handles while its erasure runs: a batch naming one of them is the erased
 * subject's (stored as a tombstone), and the receipt's `subject_hash` is made from them. The
 * only personal data of an erasure, deleted in the transaction that completes it. Owned by `erasures.ts`.
 */
export const erasureHandles = sqliteTable(
  "erasure_handles",
  {
    handleId: text("handle_id").primaryKey(),
    receiptId: text("receipt_id").notNull(),
    type: text("type").notNull(),
    scope: text("scope").notNull(),
    value: text("value").notNull(),
  },
  (table) => [
    uniqueIndex("erasure_handles_identity").on(table.type, table.scope, table.value),
    index("erasure_handles_receipt").on(table.receiptId),
  ],
);

/**
 * The space's Ed25519 keys that sign receipts (`receipt-keys.ts`): `kid` is the RFC 7638
 * thumbprint of the public key; the private key (PKCS #8, base64url) is dropped when the key is
 * retired, its public JWK kept so that old receipts stay verifiable.
 */
export const receiptKeys = sqliteTable("receipt_keys", {
  kid: text("kid").primaryKey(),
  publicJwk: text("public_jwk").notNull(),
  privateKey: text("private_key"),
  createdAt: integer("created_at").notNull(),
  retiredAt: integer("retired_at"),
});

/**
 * Items that name a handle of another profile than their own (an event that met a second
 * subject's handle, an `identify` that merged profiles): the handle, by id, and the item's `seq`.
 * Written by intake for the few items that do (`mentions.ts` noteMentions), so that forget finds
 * the items naming an erased subject's handles by index, not by reading every item. `WITHOUT
 * ROWID` (raw SQL in its migration): a handle's items are one range of the key.
 */
export const itemMentions = sqliteTable(
  "item_mentions",
  {
    handleId: text("handle_id").notNull(),
    seq: integer("seq").notNull(),
  },
  (table) => [primaryKey({ columns: [table.handleId, table.seq] })],
);
