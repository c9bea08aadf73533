import { z } from "@hono/zod-openapi";
import { IdentifierSchema, integer, LevelSchema, PageQuerySchema, TimestampSchema, text, UuidSchema } from "./common";
import { exactlyOne, withRules } from "./shape-rules";

export const SubjectKindSchema = z.enum(["person", "account", "partner"]);

/** SPEC's identifier object: a handle as the caller may see it (its value masked by role). */
export const IdentifierObjectSchema = z
  .object({
    handle_id: z.string(),
    type: z.string(),
    value: z.string().openapi({ description: "Whole, or masked by the caller's role or scope (DESIGN 3.5)." }),
    scope: z.string(),
    subject_kind: SubjectKindSchema,
    status: z.enum(["active", "detached", "erased"]),
    level: LevelSchema,
    first_seen: TimestampSchema,
    last_seen: TimestampSchema,
  })
  .openapi("IdentifierObject");

export const LinkSchema = z
  .object({
    link_id: z.string(),
    person_id: z.string().openapi({ description: "The person's profile (as it resolves now)." }),
    organization_id: z.string().openapi({ description: "The account's or partner's profile (as it resolves now)." }),
    kind: z.enum(["account", "partner"]),
    role: z.string().nullable(),
    status: z.enum(["active", "ended"]),
    created_at: TimestampSchema,
    ended_at: TimestampSchema.nullable(),
  })
  .openapi("Link");

export const MergeSchema = z
  .object({
    merge_id: z.string(),
    survivor_id: z.string(),
    absorbed_id: z.string(),
    method: z.string(),
    item_id: z.string().nullable().openapi({ description: "The `identify` item that merged, when one did." }),
    source_id: z.string().nullable(),
    created_at: TimestampSchema,
    undone: z.boolean(),
    undone_at: TimestampSchema.nullable(),
  })
  .openapi("Merge");

export const ProfileSchema = z
  .object({
    profile_id: z.string().openapi({ description: "The profile that answers now: a merged-away id answers its survivor." }),
    subject_kind: SubjectKindSchema,
    level: LevelSchema.openapi({ description: "The highest verification level any of its handles reached." }),
    identifiers: z.array(IdentifierObjectSchema),
    links: z.array(LinkSchema),
    merges: z.array(MergeSchema),
    merged_profile_ids: z.array(z.string()).openapi({ description: "Ids merged into this profile; each resolves here." }),
    created_at: TimestampSchema,
  })
  .openapi("Profile");

export const LookupInputSchema = z.strictObject({ handle: IdentifierSchema }).openapi("ProfileLookup");

export const SideSchema = withRules(z.strictObject({ handle: IdentifierSchema.optional(), profile_id: UuidSchema.optional() }), [
  exactlyOne(["handle", "profile_id"], "needs_handle_or_profile_id"),
]).openapi("LinkSide", { description: "A handle (created when unknown) or a profile id." });

export const LinkInputSchema = z
  .strictObject({
    person: SideSchema,
    organization: SideSchema,
    kind: z.enum(["account", "partner"]),
    role: text(1, 128).optional(),
  })
  .openapi("LinkInput");

/** The comparisons a suggestion lists (`features`), in the order the job makes them. */
export const ComparisonNameSchema = z.enum([
  "given_name",
  "family_name",
  "birth_date",
  "postal_code",
  "street",
  "locality",
  "email_local",
  "phone_national",
  "meetings",
]);

export const SuggestionFeatureSchema = z
  .object({
    comparison: ComparisonNameSchema,
    level: z
      .string()
      .openapi({ description: "How the two profiles' values compare (`exact`, `close`, `one_digit`…); never the values." }),
    weight: z
      .number()
      .openapi({ description: "log2(m/u) of the level: what it adds to the match weight (negative: evidence against)." }),
  })
  .openapi("IdentitySuggestionFeature");

export const SuggestionFeaturesSchema = z
  .object({
    same_name: z.boolean().openapi({
      description:
        "Whether the names agree exactly: the family names `exact` (the given names `exact` or not on both sides) or the names written the other way round (`swapped`).",
    }),
    same_postal_code: z.boolean().openapi({ description: "Whether the postal codes are `exact`." }),
    co_occurrences: z
      .number()
      .int()
      .min(0)
      .openapi({ description: "How many events held handles of both profiles (`meetings` in `comparisons`)." }),
    comparisons: z.array(SuggestionFeatureSchema).openapi({
      description:
        "Each comparison that had a value on both sides, with its level and weight; `meetings` when their handles met in events.",
    }),
  })
  .openapi("IdentitySuggestionFeatures");

export const SuggestionSchema = z
  .object({
    suggestion_id: z.string(),
    handle_a: z.string(),
    handle_b: z.string(),
    profile_a: z.string(),
    profile_b: z.string(),
    identifier_a: IdentifierObjectSchema.nullable(),
    identifier_b: IdentifierObjectSchema.nullable(),
    score: z
      .number()
      .min(0)
      .max(1)
      .openapi({ description: "The probability that the two profiles are one person (Fellegi-Sunter)." }),
    match_weight: z
      .number()
      .openapi({ description: "The space's prior plus the features' weights, in bits: `score` = 2^w / (1 + 2^w)." }),
    features: SuggestionFeaturesSchema,
    status: z.enum(["open", "accepted", "rejected"]),
    created_at: TimestampSchema,
  })
  .openapi("IdentitySuggestion");

export const SuggestionPageSchema = z
  .object({
    data: z.array(SuggestionSchema),
    next_cursor: z.string().nullable(),
    job: z
      .object({
        status: z.enum(["idle", "waiting", "running"]),
        last_run: z
          .object({
            started_at: TimestampSchema,
            finished_at: TimestampSchema,
            slices: integer(0),
            max_slice_ms: z.number().min(0),
          })
          .nullable(),
      })
      .openapi({
        description:
          "The offline job that finds suggestions: `waiting` after writes (it starts once writes have paused for 30 s, at most 5 minutes after the first), `running` in short slices, then `idle`; its last run. `max_slice_ms` is wall time where the runtime measures it (`wrangler dev`); in production clocks stand still during work and it reads 0.",
      }),
  })
  .openapi("IdentitySuggestionPage");

export const SuggestionQuerySchema = z.strictObject({
  status: z.enum(["open", "accepted", "rejected"]).optional(),
  cursor: PageQuerySchema.shape.cursor,
  limit: PageQuerySchema.shape.limit,
});

export type SuggestionQuery = z.infer<typeof SuggestionQuerySchema>;
export type IdentifierObject = z.infer<typeof IdentifierObjectSchema>;
export type Link = z.infer<typeof LinkSchema>;
export type Merge = z.infer<typeof MergeSchema>;
export type Profile = z.infer<typeof ProfileSchema>;
export type LinkInput = z.infer<typeof LinkInputSchema>;
export type Suggestion = z.infer<typeof SuggestionSchema>;
export type SuggestionFeature = z.infer<typeof SuggestionFeatureSchema>;
export type SuggestionFeatures = z.infer<typeof SuggestionFeaturesSchema>;
