// The Redis server itself: its clock, the bounded QUIT, and the settings a supervisor checks
// before it starts (checkRedisSettings.ts: eviction and persistence), read with CONFIG GET,
// which managed servers and ACLs may refuse.

import { mastersOf, type RedisClient } from './redisClient.js';

/**
 * One CONFIG GET value, of each master on a cluster (a key-less command would ask one node at
 * random): the first that is not `good`, else `good`; null when a server refuses CONFIG or has
 * no such setting.
 */
async function configValue(redis: RedisClient, name: string, good: string): Promise<string | null> {
  try {
    let worst: string | null = good;
    for (const node of await mastersOf(redis)) {
      const value = (await node.config('GET', name))[1] ?? null;
      if (value === null) return null;
      if (value !== good && worst === good) worst = value;
    }
    return worst;
  } catch {
    return null; // CONFIG refused (managed Redis, ACL): the caller cannot check
  }
}

/** maxmemory-policy (on a cluster, a master's that is not noeviction), or null when it cannot be read. */
export function evictionPolicy(redis: RedisClient): Promise<string | null> {
  return configValue(redis, 'maxmemory-policy', 'noeviction');
}

/** Whether the append-only file is on (on a cluster, on every master), or null when it cannot be read. */
export async function appendOnly(redis: RedisClient): Promise<boolean | null> {
  const value = await configValue(redis, 'appendonly', 'yes');
  return value === null ? null : value === 'yes';
}

/**
 * How many replicas are connected to the server `redis` reaches (INFO replication's
 * connected_slaves), or null when INFO is refused or unreadable. Durability 'replicated' needs
 * at least as many as it waits for (checkRedisSettings).
 */
export async function connectedReplicas(redis: RedisClient): Promise<number | null> {
  // On a Cluster, INFO would go to any node: the fewest replicas of any master is the answer.
  let fewest: number | null = null;
  try {
    for (const server of await mastersOf(redis)) {
      const m = /connected_slaves:(\d+)/.exec(await server.info('replication'));
      if (!m) return null;
      fewest = Math.min(fewest ?? Infinity, Number(m[1]));
    }
  } catch {
    return null;
  }
  return fewest;
}

/** Redis's clock (TIME) in ms: one clock for every worker and client. */
export async function serverTime(redis: RedisClient): Promise<number> {
  const [seconds, micros] = await redis.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

/** Closes `redis` after the replies to what was sent (QUIT), waiting 1 s at the most. */
export async function quit(redis: RedisClient): Promise<void> {
  // QUIT lets the replies to what was sent arrive first; it never comes from a Redis that is
  // down (it waits behind the offline queue), so it is bounded.
  const quitting = redis.quit().catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([quitting, new Promise((r) => (timer = setTimeout(r, 1_000)))]);
  clearTimeout(timer);
  redis.disconnect();
}
