import type { QuotaPeriod } from "../../contract/quotas";

/** Where the period holding `now` starts (UTC): its minute, its day, its calendar month. */
export function periodStart(period: QuotaPeriod, now: number): number {
  switch (period) {
    case "minute":
      return now - (now % 60_000);
    case "day":
      return now - (now % 86_400_000);
    case "month": {
      const date = new Date(now);
      return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
    }
  }
}

/** Where the period after the one holding `now` starts. */
export function nextPeriodStart(period: QuotaPeriod, now: number): number {
  switch (period) {
    case "minute":
      return periodStart(period, now) + 60_000;
    case "day":
      return periodStart(period, now) + 86_400_000;
    case "month": {
      const date = new Date(now);
      return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
    }
  }
}

/** Whole seconds (at least 1) until the period holding `now` ends: the `Retry-After` of a quota spent. */
export function secondsToPeriodEnd(period: QuotaPeriod, now: number): number {
  return Math.max(1, Math.ceil((nextPeriodStart(period, now) - now) / 1000));
}
