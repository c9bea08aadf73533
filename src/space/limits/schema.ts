import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** The tenant's quotas as pushed, with this space's share of each. Owned by `replica.ts`. */
export const replicaQuotas = sqliteTable("replica_quotas", {
  metric: text("metric").primaryKey(),
  period: text("period").notNull(),
  limit: integer("limit").notNull(),
  share: integer("share").notNull(),
});

/**
 * Token buckets of the space's rate limits (`space`, `key:<id>`, `person:<id>`) as the last write
 * through each left it, in sixty-thousandths of a token. Owned by `limits/rate-limits.ts`.
 */
export const rateBuckets = sqliteTable("rate_buckets", {
  name: text("name").primaryKey(),
  units: integer("units").notNull(),
  at: integer("at").notNull(),
});

/** What the space used of each metric in its current period. Owned by `limits/usage-counts.ts`. */
export const usageCounts = sqliteTable("usage_counts", {
  metric: text("metric").primaryKey(),
  periodStart: integer("period_start").notNull(),
  used: integer("used").notNull(),
});
