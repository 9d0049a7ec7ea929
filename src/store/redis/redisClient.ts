// The connection a RedisStore runs on: one Redis node (direct or found through Sentinel, both an
// ioredis `Redis`) or a Redis Cluster (an ioredis `Cluster`). Every store command names keys of
// one queue's hash tag, so the same code runs on both; what differs is only how a connection is
// copied (a blocking reader, a fail-fast one, the subscriber), what it is called in errors, and
// how a command reaches every master (mastersOf, for SCAN).

import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';

/** One node (or a Sentinel-managed one), or a cluster: what the store's commands go over. */
export type RedisClient = Redis | Cluster;

export function isCluster(conn: RedisClient): conn is Cluster {
  return (conn as { isCluster?: boolean }).isCluster === true;
}

/**
 * A new connection with `conn`'s settings and `overrides` (ioredis options of one connection).
 * On a cluster, they apply to every node's connection, and the cluster-wide ones that mean the
 * same (offline queue, reconnecting) follow them; `cluster` adds cluster-only options.
 */
export function duplicateClient(
  conn: RedisClient,
  overrides: Partial<RedisOptions> = {},
  cluster: Partial<ClusterOptions> = {},
): RedisClient {
  if (!isCluster(conn)) return conn.duplicate(overrides);
  const { retryStrategy, enableOfflineQueue, ...perNode } = overrides;
  return conn.duplicate(undefined, {
    ...(enableOfflineQueue !== undefined ? { enableOfflineQueue } : {}),
    ...(retryStrategy ? { clusterRetryStrategy: retryStrategy } : {}),
    ...cluster,
    redisOptions: { ...conn.options.redisOptions, ...perNode },
  });
}

/** The cluster's seed nodes as given (ioredis keeps them private). */
function seedsOf(cluster: Cluster): string[] {
  const nodes = (cluster as unknown as { startupNodes?: unknown[] }).startupNodes ?? [];
  return nodes.map((n) => {
    if (typeof n === 'string' || typeof n === 'number') return String(n);
    const o = n as { host?: string; port?: number };
    return `${o.host ?? '127.0.0.1'}:${o.port ?? 6379}`;
  });
}

/** `host:port` of a connection (the socket path; a Sentinel master's name; a cluster's seeds), for errors and logs. */
export function addressOf(conn: RedisClient): string {
  if (isCluster(conn)) return `cluster ${seedsOf(conn).join(',')}`;
  const o = conn.options;
  if (o.sentinels && o.sentinels.length > 0) return `sentinel master '${o.name ?? 'mymaster'}'`;
  return o.path ? o.path : `${o.host ?? '127.0.0.1'}:${o.port ?? 6379}`;
}

/**
 * The nodes that hold keys: `conn` itself, or each master of a cluster (connected first: a
 * cluster client knows its nodes once it has read the slot map). For the commands that walk one
 * node's keys (SCAN).
 */
export async function mastersOf(conn: RedisClient): Promise<Redis[]> {
  if (!isCluster(conn)) return [conn];
  if (conn.status !== 'ready') await conn.exists('machinist:masters-of');
  return conn.nodes('master');
}
