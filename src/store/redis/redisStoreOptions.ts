// A RedisStore's options, their defaults and their checks: resolveRedisStoreOptions() throws a
// TypeError naming the option that is wrong before any connection is opened.

import type { RedisOptions } from 'ioredis';
import { resolveRetention, type RetentionOptions } from '../retention.js';
import { resolveDurability, type Durability, type DurabilityOption } from './durability.js';

export interface RedisStoreOptions extends RetentionOptions {
  /** redis:// URL; or pass `redis` options. Default redis://127.0.0.1:6379. */
  url?: string;
  redis?: RedisOptions;
  /** Key prefix per deployment. Default 'machinist'. */
  prefix?: string;
  /**
   * How long a client call (enqueue, get, cancel, send, waitForResult's reads, list, dead
   * letters, ...) keeps trying while Redis does not answer, before it rejects with
   * RedisUnavailableError (`REDIS_UNAVAILABLE`, naming the server). Supervisors retry their own
   * calls without limit. Default 5,000 ms.
   */
  commandTimeoutMs?: number;
  /**
   * 'async' (default): a write is answered once the master has it; Redis replication is
   * asynchronous, so a failover can lose it. 'replicated': job creation (enqueue, children,
   * ingress drain) and a worker's commit are answered only once a replica has them too (WAIT),
   * or `{ replicas, timeoutMs }`. See durability.ts and docs/production.md ("Failover").
   */
  durability?: DurabilityOption;
}

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
  /** null: 'async'. */
  readonly durability: Durability | null;
}

export function resolveRedisStoreOptions(options: RedisStoreOptions): RedisStoreSettings {
  const prefix = options.prefix ?? 'machinist';
  if (!/^[A-Za-z0-9._:-]{1,64}$/.test(prefix)) throw new TypeError(`invalid key prefix '${prefix}'`);
  // ioredis prefixes the keys a command names, not the keys a Lua script builds from them: the
  // scripts would read and write two sets of keys, and jobs would be lost between them.
  const keyPrefix = options.redis?.keyPrefix;
  if (keyPrefix !== undefined && keyPrefix !== '')
    throw new TypeError(
      `RedisStore: redis.keyPrefix ('${keyPrefix}') is not supported (ioredis does not add it to the keys ` +
        "the store's Lua scripts build); to share one Redis between deployments, use the store's `prefix` option",
    );
  const commandTimeoutMs = options.commandTimeoutMs ?? 5_000;
  if (!(commandTimeoutMs > 0)) throw new TypeError('RedisStore: commandTimeoutMs must be a number > 0');
  return {
    url: options.url,
    redis: { maxRetriesPerRequest: null, ...options.redis },
    prefix,
    ...resolveRetention('RedisStore', options),
    commandTimeoutMs,
    durability: resolveDurability(options.durability, commandTimeoutMs),
  };
}
