import { z } from "@hono/zod-openapi";
import { integer, text } from "./common";

/** The longest range one report covers, in days (`from` and `to` included). */
export const MAX_REPORT_DAYS = 90;
/** The range when `from` is absent: this many days up to `to`, both included. */
export const DEFAULT_REPORT_DAYS = 30;

export const ContextUseQuerySchema = z.strictObject({
  from: z.iso
    .date()
    .optional()
    .openapi({ description: `First UTC day (YYYY-MM-DD), included. Default: ${DEFAULT_REPORT_DAYS - 1} days before \`to\`.` }),
  to: z.iso.date().optional().openapi({ description: "Last UTC day (YYYY-MM-DD), included. Default: today (UTC)." }),
  source_id: text(1, 128).optional().openapi({ description: "Only the agent turns this source wrote." }),
});

const count = () => integer(0);

export const ContextUseDaySchema = z
  .object({
    day: z.iso.date(),
    source_id: z.string(),
    agent_turns: count().openapi({ description: "Messages by an `ai_agent` or `human_agent`: the sum of the four below." }),
    current: count().openapi({ description: "Stamped with the etag the profile's context had at `injected_at`." }),
    late: count().openapi({
      description: "Stamped with an etag the space had answered, but the profile had received newer items by `injected_at`.",
    }),
    unknown: count().openapi({ description: "Stamped with an etag this space never answered for the turn's profile." }),
    none: count().openapi({ description: "Without `context_stamp`." }),
  })
  .openapi("ContextUseDay");

export const ContextUseReportSchema = z
  .object({
    from: z.iso.date(),
    to: z.iso.date(),
    days: z.array(ContextUseDaySchema).openapi({
      description: "One entry per UTC day and source with agent turns, by day then source; days without any are absent.",
    }),
  })
  .openapi("ContextUseReport");

export type ContextUseQuery = z.infer<typeof ContextUseQuerySchema>;
export type ContextUseDay = z.infer<typeof ContextUseDaySchema>;
export type ContextUseReport = z.infer<typeof ContextUseReportSchema>;
