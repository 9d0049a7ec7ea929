// Fan-out bookkeeping on MemoryStore, as lua/fanOpen-2.lua and the outbox relay (fanOutOps.ts,
// lua/fanIn-2.lua) on Redis: a parent's fan-out records, and the delivery of finished children
// to parents on other queues.

import type { FanState } from '../types.js';
import type { MemoryContext } from './MemoryContext.js';
import { QueueState } from './QueueState.js';

/** Opens a parent's fan-out record once (noting the group on the parent), and returns what it holds. */
export function fanOpen(
  ctx: MemoryContext,
  q: QueueState,
  parentId: string,
  group: string,
  total: number,
  policy: 'failFast' | 'collect',
): FanState {
  let fan = ctx.lc.liveFan(q, parentId, group);
  if (!fan) {
    fan = { total, policy, finished: 0, failed: 0, woken: false, revive: false, results: new Map() };
    q.fans.set(QueueState.fanKey(parentId, group), fan);
    const parent = ctx.job(q, parentId);
    if (parent) (parent.fanGroups ??= []).push({ group, total });
  }
  return {
    total: fan.total,
    policy: fan.policy,
    finished: fan.finished,
    failed: fan.failed,
    results: new Map(fan.results),
    revive: fan.revive,
  };
}

/** Delivers finished children whose parent is on another queue (100 per call); how many were. */
export function relayOutbox(ctx: MemoryContext, q: QueueState): number {
  let relayed = 0;
  for (const { member: id } of q.index.outbox.range(0, 100)) {
    q.index.outbox.delete(id);
    const c = ctx.job(q, id);
    if (!c?.parentId || !c.parentQueue || !c.group) continue;
    const outcome =
      c.status === 'done'
        ? `{"s":"done","o":${c.output ?? 'null'}}`
        : c.status === 'failed'
          ? `{"s":"failed","e":${c.error ?? 'null'}}`
          : '{"s":"cancelled"}';
    let pq: QueueState;
    try {
      pq = ctx.queue(c.parentQueue);
    } catch {
      continue; // a parent queue name that cannot be a queue: nothing to deliver to
    }
    ctx.lc.fanIn(pq, c.parentId, c.group, c.index ?? 0, c.status, outcome);
    relayed++;
  }
  return relayed;
}
