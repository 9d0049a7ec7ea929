// A RedisStore's options, their defaults and their checks: resolveRedisStoreOptions() throws a
// TypeError naming the option that is wrong before any connection is opened.

import type { RedisOptions } from 'ioredis';
import { resolveFailedRetention } from '../retention.js';

export interface RedisStoreOptions {
  /** redis:// URL; or pass `redis` options. Default redis://127.0.0.1:6379. */
  url?: string;
  redis?: RedisOptions;
  /** Key prefix per deployment. Default 'machinist'. */
  prefix?: string;
  /**
   * How long finished (done/cancelled) records are kept. Default 7 days. Records are deleted
   * by the supervisors' reaper from the done and cancelled indexes (no TTL per record).
   */
  finishedTtlMs?: number;
  /**
   * How long failed records (dead letters, jobs set aside as broken) are kept after they
   * failed. Default 7 days. Deleted by the same sweep, with their webhook bookkeeping.
   */
  failedTtlMs?: number;
  /** The most dead letters (and, apart, broken jobs) a queue keeps; the oldest go first. Default 10,000. */
  deadLetterMax?: number;
  /** How long an idempotency key keeps naming its job. Default 7 days. */
  idempotencyTtlMs?: number;
  /** Approximate cap of each queue's event stream. Default 10,000. */
  eventsMaxLen?: number;
  /**
   * How long a client call (enqueue, get, cancel, send, waitForResult's reads, list, dead
   * letters, ...) keeps trying while Redis does not answer, before it rejects with
   * RedisUnavailableError (`REDIS_UNAVAILABLE`, naming the server). Supervisors retry their own
   * calls without limit. Default 5,000 ms.
   */
  commandTimeoutMs?: number;
}

const DAY = 24 * 3600 * 1000;

/** The options with every default filled in and checked. */
export interface RedisStoreSettings {
  readonly url: string | undefined;
  readonly redis: RedisOptions;
  readonly prefix: string;
  readonly finishedTtlMs: number;
  readonly failedTtlMs: number;
  readonly deadLetterMax: number;
  readonly idempotencyTtlMs: number;
  readonly eventsMaxLen: number;
  readonly commandTimeoutMs: number;
}

export function resolveRedisStoreOptions(options: RedisStoreOptions): RedisStoreSettings {
  const prefix = options.prefix ?? 'machinist';
  if (!/^[A-Za-z0-9._:-]{1,64}$/.test(prefix)) throw new TypeError(`invalid key prefix '${prefix}'`);
  const commandTimeoutMs = options.commandTimeoutMs ?? 5_000;
  if (!(commandTimeoutMs > 0)) throw new TypeError('RedisStore: commandTimeoutMs must be a number > 0');
  const finishedTtlMs = options.finishedTtlMs ?? 7 * DAY;
  const { failedTtlMs, deadLetterMax } = resolveFailedRetention('RedisStore', options);
  return {
    url: options.url,
    redis: { maxRetriesPerRequest: null, ...options.redis },
    prefix,
    finishedTtlMs,
    failedTtlMs,
    deadLetterMax,
    // An idempotency key must not outlive the record it names (it would return an expired id).
    idempotencyTtlMs: Math.min(options.idempotencyTtlMs ?? 7 * DAY, finishedTtlMs),
    eventsMaxLen: options.eventsMaxLen ?? 10_000,
    commandTimeoutMs,
  };
}
