// How long a store keeps what it keeps, alike for every store: finished records, failed records
// (dead letters, jobs set aside as broken) and how many of each a queue keeps, idempotency keys,
// the queue's event stream. Applied by the sweep (lua/sweep-5.lua on Redis, leaseOps.sweep on
// MemoryStore). Both stores' options take these, with one set of defaults and checks: here.

const DAY = 24 * 3600 * 1000;

/** Defaults: 7 days for records and keys; 10,000 per failed set (Sidekiq's dead set keeps as many). */
export const DEFAULT_FINISHED_TTL_MS = 7 * DAY;
export const DEFAULT_FAILED_TTL_MS = 7 * DAY;
export const DEFAULT_DEAD_LETTER_MAX = 10_000;
export const DEFAULT_IDEMPOTENCY_TTL_MS = 7 * DAY;
export const DEFAULT_EVENTS_MAX_LEN = 10_000;

export interface RetentionOptions {
  /**
   * How long finished (done/cancelled) records are kept. Default 7 days. Records are deleted by
   * the supervisors' reaper from the done and cancelled indexes (no TTL per record).
   */
  finishedTtlMs?: number;
  /**
   * How long failed records (dead letters, jobs set aside as broken) are kept after they failed.
   * Default 7 days. Deleted by the same sweep, with their webhook bookkeeping.
   */
  failedTtlMs?: number;
  /** The most dead letters (and, apart, broken jobs) a queue keeps; the oldest go first. Default 10,000. */
  deadLetterMax?: number;
  /** How long an idempotency key keeps naming its job. Default 7 days. */
  idempotencyTtlMs?: number;
  /** Approximate cap of each queue's event stream. Default 10,000. */
  eventsMaxLen?: number;
}

/** The settings with defaults, checked: a TypeError names the store and the option that is wrong. */
export function resolveRetention(store: string, o: RetentionOptions): Required<RetentionOptions> {
  const finishedTtlMs = o.finishedTtlMs ?? DEFAULT_FINISHED_TTL_MS;
  const r = {
    finishedTtlMs,
    failedTtlMs: o.failedTtlMs ?? DEFAULT_FAILED_TTL_MS,
    deadLetterMax: o.deadLetterMax ?? DEFAULT_DEAD_LETTER_MAX,
    // An idempotency key must not outlive the record it names (it would return an expired id).
    idempotencyTtlMs: Math.min(o.idempotencyTtlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS, finishedTtlMs),
    eventsMaxLen: o.eventsMaxLen ?? DEFAULT_EVENTS_MAX_LEN,
  };
  for (const k of ['finishedTtlMs', 'failedTtlMs', 'idempotencyTtlMs', 'eventsMaxLen'] as const)
    if (!(r[k] > 0)) throw new TypeError(`${store}: ${k} must be a number > 0 (got ${r[k]})`);
  if (!(Number.isInteger(r.deadLetterMax) && r.deadLetterMax >= 1))
    throw new TypeError(`${store}: deadLetterMax must be an integer >= 1 (got ${r.deadLetterMax})`);
  return r;
}
