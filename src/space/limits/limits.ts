import type { QuotaMetric, QuotaPeriod } from "../../contract/quotas";
import { heldMediaBytes } from "../media/reservations";
import type { Replica } from "../replica";
import { periodStart, secondsToPeriodEnd } from "./periods";
import { RateLimits, rateLimited } from "./rate-limits";
import { readReserve } from "./token-bucket";
import { UsageCounts } from "./usage-counts";

/** A tenant quota as a space holds it: the tenant's limit, and the part of it this space may use. */
export interface QuotaShare {
  metric: QuotaMetric;
  period: QuotaPeriod;
  limit: number;
  share: number;
}

/** What a request is, for its limits: a read, a write, or a write of events (batch, feedback). */
export type RequestKind = "read" | "write" | "events";

/** How long a write waits when the space holds its storage share: nothing frees storage sooner than forget or retention. */
const STORAGE_RETRY_AFTER_S = 3600;

/** What the space used in the current periods, for `GET /v1/usage`. */
export interface SpaceUsage {
  events_per_day: { periodStart: number; used: number };
  requests_per_minute: { periodStart: number; used: number };
  storage_bytes: { periodStart: number; used: number };
  media_bytes: { periodStart: number; used: number };
}

/**
 * The space's limits on requests, in the order a request meets them after its credential:
 * the rate limits of its config, then the tenant's quotas (requests per minute; for writes the
 * storage held; for writes of events the events of the day). Writes are refused before reads:
 * each limit keeps a fifth of itself that only reads may use.
 */
export class Limits {
  #sql: SqlStorage;
  #rates: RateLimits;
  #counts: UsageCounts;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
    this.#rates = new RateLimits(sql);
    this.#counts = new UsageCounts(sql);
  }

  /**
   * Admits the request against every limit, or throws `429 rate_limited` with `Retry-After`;
   * counts it when admitted. `scope`: whose bucket it takes from besides the space's (a key, a
   * person, a download link).
   */
  admit(replica: Replica, scope: string, kind: RequestKind, now: number): void {
    const write = kind !== "read";
    const rates = replica.config.values.rate_limits;
    if (rates) this.#rates.admit(rates, scope, write, now);
    const requests = replica.quotas.get("requests_per_minute");
    if (requests) {
      const { used } = this.#counts.used("requests_per_minute", now);
      if (used + 1 + (write ? readReserve(requests.share) : 0) > requests.share) {
        throw rateLimited(secondsToPeriodEnd("minute", now), "over the tenant's requests per minute");
      }
    }
    const storage = replica.quotas.get("storage_bytes");
    if (write && storage && this.#sql.databaseSize >= storage.share) {
      throw rateLimited(STORAGE_RETRY_AFTER_S, "the tenant's storage quota is used up");
    }
    const events = replica.quotas.get("events_per_day");
    if (kind === "events" && events && this.#counts.used("events_per_day", now).used >= events.share) {
      throw rateLimited(secondsToPeriodEnd("day", now), "the tenant's events per day are used up");
    }
    this.#counts.add("requests_per_minute", 1, now);
    if (write) this.#counts.save();
  }

  /** After a write of events: what it accepted counts against the day. */
  eventsAccepted(accepted: number, now: number): void {
    this.#counts.add("events_per_day", accepted, now);
    this.#counts.save();
  }

  usage(now: number): SpaceUsage {
    const month = periodStart("month", now);
    return {
      events_per_day: this.#counts.used("events_per_day", now),
      requests_per_minute: this.#counts.used("requests_per_minute", now),
      storage_bytes: { periodStart: month, used: this.#sql.databaseSize },
      media_bytes: { periodStart: month, used: heldMediaBytes(this.#sql) },
    };
  }
}
