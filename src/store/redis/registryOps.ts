// The machine registry on Redis: one global hash, machine name -> MachineInfo JSON, that every
// worker writes at start (merging the versions it knows) and the CLI and dashboards read.
// Touched one command at a time, never from a script (it is not in any queue's slot).

import type { MachineInfo } from '../types.js';
import type { RedisContext } from './RedisContext.js';

export async function registerMachines(
  ctx: RedisContext,
  key: string,
  machines: MachineInfo[],
): Promise<void> {
  if (machines.length === 0) return;
  const existing = await ctx.redis.hmget(key, ...machines.map((m) => m.name));
  const args: string[] = [];
  machines.forEach((m, i) => {
    const prev = existing[i] ? (JSON.parse(existing[i]) as MachineInfo) : undefined;
    const versions = [...new Set([...(prev?.versions ?? []), ...m.versions])].sort((a, b) => a - b);
    args.push(m.name, JSON.stringify({ ...m, versions }));
  });
  await ctx.redis.hset(key, ...args);
}

export async function machines(ctx: RedisContext, key: string): Promise<MachineInfo[]> {
  const all = await ctx.redis.hgetall(key);
  return Object.values(all).map((v) => JSON.parse(v) as MachineInfo);
}
