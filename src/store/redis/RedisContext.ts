// What RedisStore's helper modules (fanOutOps, listJobs) need from it.

import type { Redis } from 'ioredis';
import type { QueueKeys } from '../keys.js';

export interface RedisContext {
  readonly redis: Redis;
  keys(queue: string): QueueKeys;
  run(name: string, keys: string[], args: (string | number)[]): Promise<any>;
  readonly eventsMaxLen: number;
}
