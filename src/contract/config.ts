import { z } from "@hono/zod-openapi";
import { LevelSchema } from "./common";

const seconds = z
  .number()
  .int()
  .min(1)
  .max(90 * 24 * 3600);

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
    retention_days: z.number().int().min(1).max(36_500).optional(),
    rate_limits: z
      .strictObject({
        space_per_minute: z.number().int().min(1).optional(),
        key_per_minute: z.number().int().min(1).optional(),
      })
      .optional(),
  })
  .openapi("SpaceConfigValues");

export type SpaceConfigValues = z.infer<typeof SpaceConfigValuesSchema>;

export const DEFAULT_CLOCK_TOLERANCE_S = 300;

export const SpaceConfigSchema = z
  .object({
    space_id: z.string(),
    version: z.number().int().min(0),
    values: SpaceConfigValuesSchema,
    updated_at: z.string().nullable(),
    updated_by: z.string().nullable(),
  })
  .openapi("SpaceConfig");
