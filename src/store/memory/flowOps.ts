// MemoryStore's FlowControl role (as redis/flowOps.ts and lua/flow-3.lua).

import { ValidationError } from '../../errors.js';
import { KEY_STRATEGIES, nextStartAt } from '../roles/FlowControl.js';
import type { QueueFlow, QueueFlowChange, QueueLimits } from '../types.js';
import type { MemoryCore } from './MemoryCore.js';

export function setQueueFlow(core: MemoryCore, queue: string, change: QueueFlowChange): Promise<void> {
  return core.op(() => {
    for (const f of ['total', 'perKey'] as const) {
      const v = change[f];
      if (v !== undefined && v !== null && !(Number.isInteger(v) && v >= 1))
        throw new ValidationError(`${f} must be a positive integer or null (got ${String(v)})`, {
          field: f,
          queue,
        });
    }
    let r = change.rateLimit;
    if (
      r &&
      !(
        Number.isInteger(r.limit) &&
        r.limit >= 1 &&
        Number.isInteger(r.perMs) &&
        r.perMs >= 1 &&
        Number.isInteger(r.burst ?? 0) &&
        (r.burst ?? 0) >= 0
      )
    )
      throw new ValidationError('rateLimit wants a positive limit and perMs and a burst >= 0', {
        field: 'rateLimit',
        queue,
      });
    if (change.strategy !== undefined && !KEY_STRATEGIES.includes(change.strategy))
      throw new ValidationError(`strategy must be one of ${KEY_STRATEGIES.join(', ')}`, {
        field: 'strategy',
        queue,
      });
    const q = core.queue(queue);
    const flow = q.flow;
    // WHO WINS (as flow-3.lua): run-time limits mark the queue for good; a definition's limits
    // are then not written, and otherwise only what differs.
    if (change.fromDefinition) {
      if (flow.byRun) return;
      const cur = flow.limits.rateLimit;
      if (
        r === null
          ? cur === undefined
          : r !== undefined && cur?.limit === r.limit && cur.perMs === r.perMs && cur.burst === (r.burst ?? 0)
      )
        r = undefined;
      const same = (v: number | null | undefined, c: number | undefined) =>
        v === undefined || (v === null ? c === undefined : v === c);
      if (same(change.total, flow.limits.total) && same(change.perKey, flow.limits.perKey) && r === undefined)
        return;
    } else if (
      change.total !== undefined ||
      change.perKey !== undefined ||
      r !== undefined ||
      change.strategy !== undefined
    )
      flow.byRun = true;
    if (r !== undefined) {
      // A new or cleared throttle starts afresh.
      delete flow.tat;
      if (r === null) delete flow.limits.rateLimit;
      else flow.limits.rateLimit = { limit: r.limit, perMs: r.perMs, burst: r.burst ?? 0 };
    }
    if (change.strategy === 'queue') delete flow.limits.strategy;
    else if (change.strategy !== undefined) flow.limits.strategy = change.strategy;
    if (change.paused !== undefined) flow.paused = change.paused;
    const limits: QueueLimits = { ...flow.limits };
    for (const f of ['total', 'perKey'] as const) {
      const v = change[f];
      if (v === null) delete limits[f];
      else if (v !== undefined) limits[f] = v;
    }
    flow.limits = limits;
    // Every job set aside for a full key goes back in line at its place (flow-3.lua).
    for (const [key, z] of [...flow.waiting]) {
      for (const [id, score] of z.entries()) q.index.queued.add(id, score);
      flow.waiting.delete(key);
    }
    core.toWake.add(q);
  });
}

export function queueFlow(core: MemoryCore, queue: string): Promise<QueueFlow> {
  return core.op(() => {
    const q = core.queue(queue);
    const flow = q.flow;
    const keys = new Set([...flow.holders.keys(), ...flow.waiting.keys()]);
    const throttledUntil = nextStartAt(flow.limits.rateLimit, flow.tat, core.clock());
    return {
      paused: flow.paused,
      limits: { ...flow.limits },
      running: q.index.active.size,
      keys: [...keys].sort().map((key) => ({
        key,
        running: flow.holders.get(key)?.size ?? 0,
        waiting: flow.waiting.get(key)?.size ?? 0,
      })),
      ...(throttledUntil !== undefined ? { throttledUntil } : {}),
    };
  }, false);
}
