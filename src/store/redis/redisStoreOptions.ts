// A RedisStore's options, their defaults and their checks: resolveRedisStoreOptions() throws a
// TypeError naming the option that is wrong before any connection is opened.

import { Cluster, Redis, type ClusterNode, type ClusterOptions, type RedisOptions } from 'ioredis';
import { resolveRetention, type RetentionOptions } from '../retention.js';
import { resolveDurability, type Durability, type DurabilityOption } from './durability.js';
import type { RedisClient } from './redisClient.js';
import type { ScriptsMode } from './scriptCalls.js';

/** A Redis Cluster to connect to: its seed nodes and any ioredis ClusterOptions. */
export interface RedisClusterOptions extends ClusterOptions {
  /** Some of the cluster's nodes (`{ host, port }` or `'host:port'`); the rest are found from them. */
  nodes: ClusterNode[];
}

export interface RedisStoreOptions extends RetentionOptions {
  /** redis:// URL; or pass `redis` options. Default redis://127.0.0.1:6379. */
  url?: string;
  /** ioredis options of one node, or of a Sentinel-managed one (`sentinels` and `name`). */
  redis?: RedisOptions;
  /**
   * A Redis Cluster instead of one node: `{ nodes, ...ClusterOptions }`, or a ready ioredis
   * `Cluster` (the store copies its settings for its own connections and closes it on close()).
   * Each queue lives in one hash slot (docs/production.md, "Redis Cluster").
   * @example new RedisStore({ cluster: { nodes: [{ host: '10.0.0.1', port: 6379 }] } })
   */
  cluster?: RedisClusterOptions | Cluster;
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
  /**
   * How the Lua scripts run. 'auto' (default): as one Redis Functions library (FCALL), loaded by
   * the store on every master, or with EVALSHA where the server has no Functions (Redis < 7) or
   * refuses the library (an ACL without FUNCTION LOAD). 'functions': FCALL only. 'eval': EVALSHA
   * only. See docs/production.md, "Lua scripts".
   */
  scripts?: ScriptsMode;
}

/** The options with every default filled in and checked. */
export interface RedisStoreSettings {
  /** Opens the store's main connection (a node's, or a cluster's). */
  readonly connect: () => RedisClient;
  readonly prefix: string;
  readonly finishedTtlMs: number;
  readonly failedTtlMs: number;
  readonly deadLetterMax: number;
  readonly idempotencyTtlMs: number;
  readonly eventsMaxLen: number;
  readonly commandTimeoutMs: number;
  /** null: 'async'. */
  readonly durability: Durability | null;
  readonly scripts: ScriptsMode;
}

/** ioredis prefixes the keys a command names, not the keys a Lua script builds from them: the
 * scripts would read and write two sets of keys, and jobs would be lost between them. */
function refuseKeyPrefix(option: string, keyPrefix: string | undefined): void {
  if (keyPrefix !== undefined && keyPrefix !== '')
    throw new TypeError(
      `RedisStore: ${option} ('${keyPrefix}') is not supported (ioredis does not add it to the keys ` +
        "the store's Lua scripts build); to share one Redis between deployments, use the store's `prefix` option",
    );
}

/** The patient connection's settings: supervisors' calls wait out any outage (BoundedCalls.ts). */
const PATIENT: Partial<RedisOptions> = { maxRetriesPerRequest: null };

function clusterConnect(cluster: RedisClusterOptions | Cluster): () => RedisClient {
  if (cluster instanceof Cluster || (cluster as { isCluster?: boolean }).isCluster === true) {
    const c = cluster as Cluster;
    refuseKeyPrefix('cluster.keyPrefix', c.options.keyPrefix);
    refuseKeyPrefix('cluster.redisOptions.keyPrefix', c.options.redisOptions?.keyPrefix);
    return () => c;
  }
  const { nodes, ...options } = cluster;
  if (!Array.isArray(nodes) || nodes.length === 0)
    throw new TypeError('RedisStore: cluster.nodes must list at least one node of the cluster');
  refuseKeyPrefix('cluster.keyPrefix', options.keyPrefix);
  refuseKeyPrefix('cluster.redisOptions.keyPrefix', options.redisOptions?.keyPrefix);
  return () => new Cluster(nodes, { ...options, redisOptions: { ...PATIENT, ...options.redisOptions } });
}

export function resolveRedisStoreOptions(options: RedisStoreOptions): RedisStoreSettings {
  const prefix = options.prefix ?? 'machinist';
  if (!/^[A-Za-z0-9._:-]{1,64}$/.test(prefix)) throw new TypeError(`invalid key prefix '${prefix}'`);
  refuseKeyPrefix('redis.keyPrefix', options.redis?.keyPrefix);
  if (options.cluster && (options.url !== undefined || options.redis !== undefined))
    throw new TypeError(
      'RedisStore: give either `cluster` or `url`/`redis`, not both (per-node options of a cluster go in cluster.redisOptions)',
    );
  const commandTimeoutMs = options.commandTimeoutMs ?? 5_000;
  if (!(commandTimeoutMs > 0)) throw new TypeError('RedisStore: commandTimeoutMs must be a number > 0');
  const scripts = options.scripts ?? 'auto';
  if (scripts !== 'auto' && scripts !== 'functions' && scripts !== 'eval')
    throw new TypeError(`RedisStore: scripts must be 'auto', 'functions' or 'eval' (got ${String(scripts)})`);
  const redis = { ...PATIENT, ...options.redis };
  const url = options.url;
  return {
    connect: options.cluster
      ? clusterConnect(options.cluster)
      : () => (url ? new Redis(url, redis) : new Redis(redis)),
    prefix,
    ...resolveRetention('RedisStore', options),
    commandTimeoutMs,
    durability: resolveDurability(options.durability, commandTimeoutMs),
    scripts,
  };
}
