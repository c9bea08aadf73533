import { z } from "@hono/zod-openapi";
import { clientKeyed, integer, LevelSchema, text } from "./common";

/** The highest rate a space's configuration may name: far above what one space's object serves. */
export const MAX_PER_MINUTE = 1_000_000;

const seconds = z
  .number()
  .int()
  .min(1)
  .max(90 * 24 * 3600);

/** What an attribute of system events can be read as for identity suggestions (`identity_traits`). */
export const AttributeTraitSchema = z.enum([
  "full_name",
  "given_name",
  "family_name",
  "birth_date",
  "postal_code",
  "street",
  "locality",
  "state",
]);

/** Keys of a space's configuration (DESIGN 3.11). Every key is optional; a missing one takes its default. */
export const SpaceConfigValuesSchema = z
  .strictObject({
    clock_tolerance_s: z.number().int().min(0).max(86_400).optional(),
    session_windows: z
      .strictObject({
        whatsapp: seconds.optional(),
        app: seconds.optional(),
        voice: seconds.optional(),
        email: seconds.optional(),
        ticket: seconds.optional(),
        crm: seconds.optional(),
        erp: seconds.optional(),
        task: seconds.optional(),
      })
      .optional(),
    hot_tier_budget_mb: z.number().int().min(1).max(1024).optional(),
    coverage_tolerance: z.number().min(0).max(1).optional(),
    silent_after_h: z
      .number()
      .int()
      .min(1)
      .max(24 * 90)
      .optional(),
    history_text_level: LevelSchema.optional(),
    episode_highlights: z.number().int().min(0).max(10).optional().openapi({
      description:
        "How many of the customer's statements about themselves an episode keeps as `highlights` (default 5; 0 keeps none).",
    }),
    retention_days: z.number().int().min(1).max(36_500).optional().openapi({
      description:
        'Events older than this many days (by `occurred_at`) have their content erased, with what was derived only from them, by a daily run (docs/api/privacy.md "Retention"); their tombstones stay. None: kept until erased.',
    }),
    identity_traits: clientKeyed(
      z
        .record(text(1, 128), AttributeTraitSchema.nullable())
        // The names as the server holds them (zod-to-openapi leaves a record's key schema out).
        .openapi({ propertyNames: { minLength: 1, maxLength: 128, not: { const: "__proto__" } } } as Record<never, never>),
    )
      .optional()
      .openapi({
        description:
          'Attribute names of system events read as identity traits, besides the defaults (`name`, `given_name`, `surname`, `date_of_birth`, `postal_code`, `street`, `suburb`, `state` and their usual synonyms): `{"plz": "postal_code"}`; null ignores a default name.',
      }),
    suggestion_threshold: z.number().min(0.5).max(0.9999).optional().openapi({
      description: "The match probability from which a pair of profiles is suggested (default 0.8).",
    }),
    summarizer_model: z
      .string()
      .max(100)
      .regex(/^@(cf|hf)\/[\w.-]+\/[\w.-]+$/)
      .optional()
      .openapi({
        description:
          "A Workers AI text-generation model with JSON mode (`@cf/meta/llama-3.3-70b-instruct-fp8-fast`) that summarizes closed sessions in the background, where the `AI` binding is present; the offline summary stays until its answer is in, and on any failure.",
      }),
    summarizer_daily_limit: z.number().int().min(1).max(1_000_000).optional().openapi({
      description: "How many model calls the space makes per UTC day at most (default 1,000).",
    }),
    rate_limits: z
      .strictObject({
        space_per_minute: integer(1, MAX_PER_MINUTE)
          .optional()
          .openapi({ description: "Requests per minute the whole space takes, from every key and person together." }),
        key_per_minute: integer(1, MAX_PER_MINUTE)
          .optional()
          .openapi({ description: "Requests per minute one key (or one person) takes." }),
      })
      .optional()
      .openapi({
        description:
          "Token buckets (docs/api/contract.md#rate-limits): each holds a minute's requests and refills evenly; writes stop while a fifth of the bucket is left, which only reads may take. Over a limit: `429 rate_limited` with `Retry-After`. Absent: no limit.",
      }),
  })
  .openapi("SpaceConfigValues");

export type SpaceConfigValues = z.infer<typeof SpaceConfigValuesSchema>;

export const DEFAULT_CLOCK_TOLERANCE_S = 300;

export const SpaceConfigSchema = z
  .object({
    space_id: z.string(),
    version: integer(0),
    values: SpaceConfigValuesSchema,
    updated_at: z.string().nullable(),
    updated_by: z.string().nullable(),
  })
  .openapi("SpaceConfig");
