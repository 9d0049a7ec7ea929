// The machine registry and the queue set on Redis: global keys (in no queue's slot), touched one
// command at a time, never from a script. Supervisors write them at start, on every reconnect
// and periodically (Supervisor's registryRefreshMs), because nothing else would restore them
// after Redis lost its data; the client, the CLI and dashboards read them.

import type { MachineInfo } from '../types.js';
import type { RedisContext } from './RedisContext.js';

/**
 * Merges `machines` into the registry hash: the versions are the union of what is stored and
 * what is given; the other fields (hasLoad, definition, maxAttempts) come from whichever side
 * knows the newest version, so supervisors of an older deployment that refresh the registry do
 * not undo a newer one's. Fingerprints merge per version, the stored one winning (a supervisor
 * whose definition differs refuses to start: Supervisor.ts), unless `replaceFingerprints`; so do
 * the versions' chart models (`graphs`).
 */
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
    const versions = [...new Set([...(prev?.versions ?? []), ...m.versions])].sort((a, b) => a - b);
    const newer = prev && Math.max(...prev.versions) > Math.max(...m.versions) ? prev : m;
    const fingerprints = replaceFingerprints
      ? { ...prev?.fingerprints, ...m.fingerprints }
      : { ...m.fingerprints, ...prev?.fingerprints };
    // A version's chart goes with its fingerprint: the stored one stays unless replaced on purpose.
    const graphs = replaceFingerprints ? { ...prev?.graphs, ...m.graphs } : { ...m.graphs, ...prev?.graphs };
    const merged: MachineInfo = { ...newer, versions };
    if (Object.keys(fingerprints).length > 0) merged.fingerprints = fingerprints;
    else delete merged.fingerprints;
    if (Object.keys(graphs).length > 0) merged.graphs = graphs;
    else delete merged.graphs;
    args.push(m.name, JSON.stringify(merged));
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
