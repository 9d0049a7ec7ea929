// What RedisStore's helper modules (commitOps, fanOutOps, listJobs, ...) need from it.

import type { Redis } from 'ioredis';
import type { QueueKeys } from '../keys.js';

export interface RedisContext {
  readonly redis: Redis;
  /** The store's key prefix (for the global keys: registry, queue list). */
  readonly prefix: string;
  keys(queue: string): QueueKeys;
  run(name: string, keys: string[], args: (string | number)[]): Promise<any>;
  readonly eventsMaxLen: number;
  /** Retention of finished records (and TTL of a finished parent's fan-out keys). */
  readonly finishedTtlMs: number;
}
