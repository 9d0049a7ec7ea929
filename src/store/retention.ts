// The retention settings of failed records, alike for every store: how long a dead letter (or a
// job set aside as broken) is kept, and how many of each a queue keeps. Applied by the sweep
// (lua/sweep-5.lua on Redis, leaseOps.sweep on MemoryStore) with the finished records' window.

const DAY = 24 * 3600 * 1000;

/** Defaults: 7 days (as finished records), and 10,000 per set (Sidekiq's dead set keeps as many). */
export const DEFAULT_FAILED_TTL_MS = 7 * DAY;
export const DEFAULT_DEAD_LETTER_MAX = 10_000;

export interface FailedRetention {
  failedTtlMs?: number;
  deadLetterMax?: number;
}

/** The settings with defaults, checked: a TypeError names the option that is wrong. */
export function resolveFailedRetention(store: string, o: FailedRetention): Required<FailedRetention> {
  const failedTtlMs = o.failedTtlMs ?? DEFAULT_FAILED_TTL_MS;
  const deadLetterMax = o.deadLetterMax ?? DEFAULT_DEAD_LETTER_MAX;
  if (!(failedTtlMs > 0))
    throw new TypeError(`${store}: failedTtlMs must be a number > 0 (got ${failedTtlMs})`);
  if (!(Number.isInteger(deadLetterMax) && deadLetterMax >= 1))
    throw new TypeError(`${store}: deadLetterMax must be an integer >= 1 (got ${deadLetterMax})`);
  return { failedTtlMs, deadLetterMax };
}
