// The Fleet role on Redis (roles/Fleet.ts): a supervisor's announce (lua/announce-2.lua), and the
// fleet read back with the jobs each queue's reaper took back (the `reaped` zsets reap-7.lua
// writes), made into the fleet's view by fleetView.ts.

import { fleetKeys } from '../keys.js';
import type { FleetWorker, WorkerFacts } from '../roles/Fleet.js';
import { fleetView, type ReapedEntry, type Seen } from '../fleetView.js';
import type { RedisContext } from './RedisContext.js';
import { serverTime } from './serverOps.js';

export async function announce(ctx: RedisContext, facts: WorkerFacts): Promise<void> {
  const k = fleetKeys(ctx.prefix);
  await ctx.run('announce', [k.facts, k.seen], [facts.workerId, JSON.stringify(facts)]);
}

export async function workers(ctx: RedisContext, queues: string[]): Promise<FleetWorker[]> {
  const k = fleetKeys(ctx.prefix);
  const pipe = ctx.redis.pipeline();
  pipe.hgetall(k.facts);
  pipe.zrange(k.seen, '0', '-1', 'WITHSCORES');
  for (const queue of queues) pipe.zrange(ctx.keys(queue).reaped, '0', '-1', 'WITHSCORES');
  const res = (await pipe.exec()) ?? [];
  for (const [err] of res) if (err) throw err;
  const [facts, seenScores, ...reapedByQueue] = res.map(([, v]) => v) as [
    Record<string, string>,
    string[],
    ...string[][],
  ];
  const seen: Seen[] = [];
  for (let i = 0; i < seenScores.length; i += 2) {
    const text = facts[seenScores[i]!];
    if (text) seen.push({ facts: JSON.parse(text) as WorkerFacts, seenAt: Number(seenScores[i + 1]) });
  }
  const reaped: ReapedEntry[] = [];
  reapedByQueue.forEach((entries, qi) => {
    for (let i = 0; i < entries.length; i += 2) {
      const e = JSON.parse(entries[i]!) as { w: string; id: string; o: 'requeued' | 'failed' };
      reaped.push({ workerId: e.w, id: e.id, outcome: e.o, queue: queues[qi]!, at: Number(entries[i + 1]) });
    }
  });
  return fleetView(seen, reaped, await serverTime(ctx.redis));
}
