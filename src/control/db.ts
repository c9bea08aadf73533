import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";

export type ControlDb = DrizzleSqliteDODatabase<Record<string, unknown>>;

export const iso = (ms: number) => new Date(ms).toISOString();
export const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));
