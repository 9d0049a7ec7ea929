// The machine registry and the queue set on Redis: global keys (in no queue's slot), touched one
// command at a time, never from a script. Supervisors write them at start, on every reconnect
// and periodically (Supervisor's registryRefreshMs), because nothing else would restore them
// after Redis lost its data; the client, the CLI and dashboards read them.

import type { MachineInfo } from '../types.js';
import type { RedisContext } from './RedisContext.js';
import { mergeMachine } from '../mergeMachine.js';
import { partitionsKey, queuesKey } from '../keys.js';

/** Merges `machines` into the registry hash (mergeMachine.ts: what is kept from each side). */
export async function registerMachines(
  ctx: RedisContext,
  key: string,
  machines: MachineInfo[],
  replaceFingerprints = false,
): Promise<void> {
  if (machines.length === 0) return;
  const existing = await ctx.redis.hmget(key, ...machines.map((m) => m.name));
  const args: string[] = [];
  machines.forEach((m, i) => {
    const prev = existing[i] ? (JSON.parse(existing[i]) as MachineInfo) : undefined;
    args.push(m.name, JSON.stringify(mergeMachine(prev, m, replaceFingerprints)));
  });
  await ctx.redis.hset(key, ...args);
}

export async function registerQueue(ctx: RedisContext, key: string, queue: string): Promise<void> {
  await ctx.redis.sadd(key, queue);
}

export async function machines(ctx: RedisContext, key: string): Promise<MachineInfo[]> {
  const all = await ctx.redis.hgetall(key);
  return Object.values(all).map((v) => JSON.parse(v) as MachineInfo);
}

/** A queue's partition count (1 when none is recorded). */
export async function partitions(ctx: RedisContext, queue: string): Promise<number> {
  return Number((await ctx.redis.hget(partitionsKey(ctx.prefix), queue)) ?? 1);
}

/** Every queue in the queue set, sorted. */
export async function queues(ctx: RedisContext): Promise<string[]> {
  return (await ctx.redis.smembers(queuesKey(ctx.prefix))).sort();
}
