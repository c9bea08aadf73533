import { METRIC_PERIOD, type QuotaMetric } from "../../contract/quotas";
import { periodStart } from "./periods";

/** The counted metrics: flows over a period. Storage and media are measured, not counted. */
export type CountedMetric = Extract<QuotaMetric, "events_per_day" | "requests_per_minute">;

interface Count {
  periodStart: number;
  used: number;
  /** Changed since it was last written to `usage_counts`. */
  unsaved: boolean;
}

/**
 * Events accepted per UTC day and requests admitted per minute, in this space. Kept in memory,
 * read from `usage_counts` on first use after a start, and written back by `save` (the object
 * calls it on writes, whose commit it joins): a restart forgets at most the reads counted since
 * the last write.
 */
export class UsageCounts {
  #sql: SqlStorage;
  #counts: Map<CountedMetric, Count> | null = null;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /** What was used in the period holding `now`. */
  used(metric: CountedMetric, now: number): { periodStart: number; used: number } {
    const count = this.#current(metric, now);
    return { periodStart: count.periodStart, used: count.used };
  }

  add(metric: CountedMetric, amount: number, now: number): void {
    if (amount === 0) return;
    const count = this.#current(metric, now);
    count.used += amount;
    count.unsaved = true;
  }

  save(): void {
    for (const [metric, count] of this.#loaded()) {
      if (!count.unsaved) continue;
      this.#sql.exec(
        "INSERT INTO usage_counts (metric, period_start, used) VALUES (?, ?, ?) ON CONFLICT (metric) DO UPDATE SET period_start = excluded.period_start, used = excluded.used",
        metric,
        count.periodStart,
        count.used,
      );
      count.unsaved = false;
    }
  }

  #current(metric: CountedMetric, now: number): Count {
    const counts = this.#loaded();
    const start = periodStart(METRIC_PERIOD[metric], now);
    let count = counts.get(metric);
    if (!count || count.periodStart !== start) {
      count = { periodStart: start, used: 0, unsaved: count !== undefined };
      counts.set(metric, count);
    }
    return count;
  }

  #loaded(): Map<CountedMetric, Count> {
    if (this.#counts) return this.#counts;
    this.#counts = new Map();
    const rows = this.#sql.exec<{ metric: string; period_start: number; used: number }>(
      "SELECT metric, period_start, used FROM usage_counts",
    );
    for (const row of rows) {
      this.#counts.set(row.metric as CountedMetric, { periodStart: row.period_start, used: row.used, unsaved: false });
    }
    return this.#counts;
  }
}
