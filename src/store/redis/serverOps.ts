// The Redis server itself: its clock, the bounded QUIT, and the settings a supervisor checks
// before it starts (checkRedisSettings.ts: eviction and persistence), read with CONFIG GET,
// which managed servers and ACLs may refuse.

import type { RedisClient } from './redisClient.js';

/** One CONFIG GET value; null when the server refuses CONFIG or has no such setting. */
async function configValue(redis: RedisClient, name: string): Promise<string | null> {
  try {
    const res = await redis.config('GET', name);
    return res[1] ?? null;
  } catch {
    return null; // CONFIG refused (managed Redis, ACL): the caller cannot check
  }
}

/** maxmemory-policy, or null when it cannot be read. */
export function evictionPolicy(redis: RedisClient): Promise<string | null> {
  return configValue(redis, 'maxmemory-policy');
}

/** Whether the append-only file is on, or null when it cannot be read. */
export async function appendOnly(redis: RedisClient): Promise<boolean | null> {
  const value = await configValue(redis, 'appendonly');
  return value === null ? null : value === 'yes';
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
