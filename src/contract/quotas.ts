import { z } from "@hono/zod-openapi";
import { integer, TimestampSchema, UuidSchema } from "./common";
import { type ShapeRule, withRules } from "./shape-rules";

export const QUOTA_METRICS = ["events_per_day", "requests_per_minute", "storage_bytes", "media_bytes"] as const;
export type QuotaMetric = (typeof QUOTA_METRICS)[number];

export const QUOTA_PERIODS = ["minute", "day", "month"] as const;
export type QuotaPeriod = (typeof QUOTA_PERIODS)[number];

/**
 * The one period each metric is counted over: a flow over the period its name says; an amount
 * held (storage, media) at every moment, reported per calendar month. A record naming another
 * period would be read two ways, so it is refused.
 */
export const METRIC_PERIOD: Record<QuotaMetric, QuotaPeriod> = {
  events_per_day: "day",
  requests_per_minute: "minute",
  storage_bytes: "month",
  media_bytes: "month",
};

const periodOfMetric: ShapeRule<{ metric: QuotaMetric; period: QuotaPeriod }> = {
  name: "not_the_period_of_the_metric",
  field: "period",
  reads: ["metric", "period"],
  holds: ({ metric, period }) => METRIC_PERIOD[metric] === period,
  describe: ({ metric }) => `not_the_period_of_the_metric_${METRIC_PERIOD[metric]}`,
  schema: {
    anyOf: QUOTA_METRICS.map((metric) => ({
      properties: { metric: { const: metric }, period: { const: METRIC_PERIOD[metric] } },
    })),
  },
};

/** SPEC's quota record: `PUT /v1/quotas` takes it and answers it back. */
export const QuotaSchema = withRules(
  z.strictObject({
    tenant_id: UuidSchema,
    metric: z.enum(QUOTA_METRICS),
    limit: integer(0).openapi({ description: "Maximum for the period; 0 refuses every use of the metric." }),
    period: z.enum(QUOTA_PERIODS),
  }),
  [periodOfMetric],
).openapi("Quota", {
  description: `One limit of a tenant, for all its spaces together. Each metric has one period: ${QUOTA_METRICS.map((metric) => `\`${metric}\` \`${METRIC_PERIOD[metric]}\``).join(", ")}; another is \`422\` (\`period: not_the_period_of_the_metric_<period>\`). A second PUT for the same tenant and metric replaces the first.`,
});

export type Quota = z.infer<typeof QuotaSchema>;

export const QuotaQuerySchema = z.strictObject({ tenant_id: UuidSchema });

export const QuotaListSchema = z
  .object({ data: z.array(QuotaSchema).max(QUOTA_METRICS.length) })
  .openapi("QuotaList", { description: "The tenant's quotas, at most one per metric, in the order of the metrics." });

const count = integer(0);

export const MetricUsageSchema = z
  .object({
    metric: z.enum(QUOTA_METRICS),
    period: z.enum(QUOTA_PERIODS),
    period_start: TimestampSchema.openapi({ description: "Start of the current period (UTC)." }),
    used: count.openapi({
      description: "Events accepted and requests admitted in the current period; for storage and media, the bytes held now.",
    }),
    limit: count.nullable().openapi({ description: "The tenant's quota, or null when none is set." }),
    spaces: z.array(z.object({ space_id: z.string(), used: count })),
  })
  .openapi("MetricUsage");

export const UsageSchema = z
  .object({
    tenant_id: z.string(),
    measured_at: TimestampSchema,
    metrics: z.array(MetricUsageSchema).length(QUOTA_METRICS.length),
  })
  .openapi("Usage");

export type MetricUsage = z.infer<typeof MetricUsageSchema>;
export type Usage = z.infer<typeof UsageSchema>;
