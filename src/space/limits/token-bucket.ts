/**
 * Token-bucket arithmetic, exact in integers. A bucket of a rate of `perMinute` requests holds a
 * minute's requests at most and refills evenly: counted in sixty-thousandths of a token, it gains
 * `perMinute` units per millisecond and is full after 60,000 ms whatever the rate, so no sum here
 * leaves the integers a double holds exactly (at most 60,000 × 1,000,000 units).
 */
export const UNITS_PER_TOKEN = 60_000;

export interface Bucket {
  /** What the bucket held at `at`, in units. */
  units: number;
  /** When `units` was measured (ms). */
  at: number;
}

export function fullBucket(perMinute: number, now: number): Bucket {
  return { units: perMinute * UNITS_PER_TOKEN, at: now };
}

/** The bucket at `now`: refilled for the time since it was measured, never above full. A clock that went back refills nothing. */
export function refilled(bucket: Bucket, perMinute: number, now: number): Bucket {
  const capacity = perMinute * UNITS_PER_TOKEN;
  const elapsed = Math.min(Math.max(now - bucket.at, 0), UNITS_PER_TOKEN);
  return { units: Math.min(capacity, bucket.units + elapsed * perMinute), at: Math.max(bucket.at, now) };
}

/** Tokens a read leaves untouched for nobody, and a write for the reads: a fifth of the bucket. */
export function readReserve(perMinute: number): number {
  return Math.floor(perMinute / 5);
}

/** The tokens a request needs in the bucket to be let through: one, and a write the reads' reserve besides. */
export function tokensNeeded(perMinute: number, write: boolean): number {
  return 1 + (write ? readReserve(perMinute) : 0);
}

/**
 * Whole seconds until a refilled bucket holds `needed` tokens: the `Retry-After` of a refused
 * request (at least 1). Waiting that long always suffices, and a second less never does.
 */
export function secondsUntil(bucket: Bucket, perMinute: number, needed: number): number {
  const missing = needed * UNITS_PER_TOKEN - bucket.units;
  if (missing <= 0) return 0;
  return Math.max(1, Math.ceil(Math.ceil(missing / perMinute) / 1000));
}

/** Takes one token when the refilled bucket holds `needed`; `bucket` is the refilled one either way. */
export function take(
  bucket: Bucket,
  perMinute: number,
  needed: number,
  now: number,
): { taken: true; bucket: Bucket } | { taken: false; bucket: Bucket; retryAfter: number } {
  const current = refilled(bucket, perMinute, now);
  if (current.units >= needed * UNITS_PER_TOKEN) {
    return { taken: true, bucket: { units: current.units - UNITS_PER_TOKEN, at: current.at } };
  }
  return { taken: false, bucket: current, retryAfter: secondsUntil(current, perMinute, needed) };
}
