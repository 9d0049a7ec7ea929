// What RedisStore's helper modules (commitOps, fanOutOps, listJobs, ...) need from it.

import type { RedisClient } from './redisClient.js';
import type { QueueKeys } from '../keys.js';
import { defineScripts } from './scripts.js';

export interface RedisContext {
  readonly redis: RedisClient;
  /** The store's key prefix (for the global keys: registry, queue list). */
  readonly prefix: string;
  keys(queue: string): QueueKeys;
  run(name: string, keys: string[], args: (string | number)[]): Promise<any>;
  readonly eventsMaxLen: number;
  /** Retention of finished records (and TTL of a finished parent's fan-out keys). */
  readonly finishedTtlMs: number;
  /** Retention of failed records (dead letters, broken jobs), and the cap of each set. */
  readonly failedTtlMs: number;
  readonly deadLetterMax: number;
}

/** A context over `redis`, with the scripts loaded on that connection. */
export function redisContext(
  redis: RedisClient,
  settings: Pick<
    RedisContext,
    'prefix' | 'keys' | 'eventsMaxLen' | 'finishedTtlMs' | 'failedTtlMs' | 'deadLetterMax'
  >,
): RedisContext {
  const scripts = defineScripts(redis);
  return {
    redis,
    prefix: settings.prefix,
    keys: settings.keys,
    run: (name, keys, args) => scripts[name]!(keys, args),
    eventsMaxLen: settings.eventsMaxLen,
    finishedTtlMs: settings.finishedTtlMs,
    failedTtlMs: settings.failedTtlMs,
    deadLetterMax: settings.deadLetterMax,
  };
}
