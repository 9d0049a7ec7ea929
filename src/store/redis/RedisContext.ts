// What RedisStore's helper modules (commitOps, fanOutOps, listJobs, ...) need from it.

import type { RedisClient } from './redisClient.js';
import type { QueueKeys } from '../keys.js';
import { scriptCalls } from './scripts.js';
import type { ScriptCalls, ScriptsMode } from './scriptCalls.js';
import type { ReplicaWait } from './durability.js';

export interface RedisContext {
  readonly redis: RedisClient;
  /** The store's key prefix (for the global keys: registry, queue list). */
  readonly prefix: string;
  keys(queue: string): QueueKeys;
  run(name: string, keys: string[], args: (string | number)[]): Promise<any>;
  /** As run, the reply's bulk strings as Buffers (ScriptCalls.run's `buffers`). */
  runBuffers(name: string, keys: string[], args: (string | number)[]): Promise<unknown>;
  /** How this connection runs the scripts (FCALL or EVALSHA): for a pipeline holding one (durability.ts). */
  readonly scripts: ScriptCalls;
  readonly eventsMaxLen: number;
  /** Retention of finished records (and TTL of a finished parent's fan-out keys). */
  readonly finishedTtlMs: number;
  /** Retention of failed records (dead letters, broken jobs), and the cap of each set. */
  readonly failedTtlMs: number;
  readonly deadLetterMax: number;
  /** Durability 'replicated' (durability.ts): job-creating writes and commits WAIT; absent for 'async'. */
  readonly replicaWait?: ReplicaWait;
}

/** A context over `redis`, with the scripts loaded on that connection. */
export function redisContext(
  redis: RedisClient,
  settings: Pick<
    RedisContext,
    'prefix' | 'keys' | 'eventsMaxLen' | 'finishedTtlMs' | 'failedTtlMs' | 'deadLetterMax' | 'replicaWait'
  > & { scripts: ScriptsMode },
): RedisContext {
  const scripts = scriptCalls(redis, settings.scripts);
  return {
    redis,
    prefix: settings.prefix,
    keys: settings.keys,
    run: (name, keys, args) => scripts.run(name, keys, args),
    runBuffers: (name, keys, args) => scripts.run(name, keys, args, true),
    scripts,
    eventsMaxLen: settings.eventsMaxLen,
    finishedTtlMs: settings.finishedTtlMs,
    failedTtlMs: settings.failedTtlMs,
    deadLetterMax: settings.deadLetterMax,
    replicaWait: settings.replicaWait,
  };
}
