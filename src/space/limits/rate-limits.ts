import type { SpaceConfigValues } from "../../contract/config";
import { Problem } from "../../http/problem";
import { type Bucket, fullBucket, take, tokensNeeded } from "./token-bucket";

export type RateLimitsConfig = NonNullable<SpaceConfigValues["rate_limits"]>;

/**
 * The refusal of a request over a rate limit or quota. The seconds are in `detail` too: an MCP
 * tool error carries the problem document but no header.
 */
export function rateLimited(retryAfter: number, why: string): Problem {
  return new Problem("rate_limited", `${why}; retry after ${retryAfter} s`, { "Retry-After": String(retryAfter) });
}

/**
 * The space's rate limits (config `rate_limits`): one token bucket for the space, one per key or
 * person. A request takes a token from each that applies, or from none when one of them is short
 * (a refused request costs nothing). Buckets live in memory; a write saves the ones it took from
 * to `rate_buckets`, so after a restart a bucket is what the last write left, refilled for the
 * time since (reads since then are forgotten: they are the last thing limited anyway). A bucket
 * never saved starts full.
 */
export class RateLimits {
  #sql: SqlStorage;
  #buckets = new Map<string, Bucket>();

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /** Takes a token for the request, or throws `429 rate_limited` with the seconds until it would pass. */
  admit(config: RateLimitsConfig, credential: string, write: boolean, now: number): void {
    const limits: [string, number][] = [];
    if (config.space_per_minute !== undefined) limits.push(["space", config.space_per_minute]);
    if (config.key_per_minute !== undefined) limits.push([credential, config.key_per_minute]);
    const taken: [string, Bucket][] = [];
    let retryAfter = 0;
    for (const [name, perMinute] of limits) {
      const outcome = take(this.#bucket(name, perMinute, now), perMinute, tokensNeeded(perMinute, write), now);
      if (outcome.taken) taken.push([name, outcome.bucket]);
      else {
        this.#buckets.set(name, outcome.bucket);
        retryAfter = Math.max(retryAfter, outcome.retryAfter);
      }
    }
    if (retryAfter > 0) throw rateLimited(retryAfter, write ? "over the write rate limit" : "over the rate limit");
    for (const [name, bucket] of taken) {
      this.#buckets.set(name, bucket);
      if (write) this.#save(name, bucket);
    }
  }

  #bucket(name: string, perMinute: number, now: number): Bucket {
    const held = this.#buckets.get(name);
    if (held) return held;
    const row = this.#sql
      .exec<{ units: number; at: number }>("SELECT units, at FROM rate_buckets WHERE name = ?", name)
      .toArray()[0];
    return row ? { units: row.units, at: row.at } : fullBucket(perMinute, now);
  }

  #save(name: string, bucket: Bucket): void {
    this.#sql.exec(
      "INSERT INTO rate_buckets (name, units, at) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET units = excluded.units, at = excluded.at",
      name,
      bucket.units,
      bucket.at,
    );
  }
}
