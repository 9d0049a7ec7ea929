// MemoryStore's WorkQueue role, the parts with more than a line: commit-and-claim, the reap and
// its single-flight lock, and a supervisor's wait for work.

import { assertQueueName } from '../keys.js';
import type { ClaimRequest, CommitOp, CommitResult, QueuesWaiter, ReapResult } from '../types.js';
import { queuesWaiter } from './signals.js';
import { applyOps, checkCommit } from './commitOps.js';
import { claimJobs } from './claimJobs.js';
import * as leaseOps from './leaseOps.js';
import type { MemoryCore } from './MemoryCore.js';

export function commit(
  core: MemoryCore,
  queue: string,
  ops: CommitOp[],
  claim?: ClaimRequest,
): Promise<CommitResult> {
  return core.op(() => {
    checkCommit(ops, claim);
    const q = core.queue(queue);
    const written = applyOps(core.lc, q, ops, core.opNow);
    let claimed: CommitResult['claimed'] = [];
    let nextDueAt: number | null = null;
    if (claim && claim.max > 0) {
      const c = claimJobs(core.lc, q, claim, core.opNow);
      claimed = c.claimed;
      nextDueAt = c.nextDueAt;
      // There may be more: let another idle supervisor wake and take some.
      if (c.more) core.toWake.add(q);
    }
    return { written, claimed, nextDueAt, redisNow: core.opNow };
  });
}

export function reap(
  core: MemoryCore,
  queue: string,
  options: { maxLeaseRequeues: number; lockMs?: number },
): Promise<ReapResult> {
  return core.op(() => {
    // Single flight per interval (a rate limit, on the process's own clock, not a stored time),
    // lapsing by the time the earliest lease passes, as reap-7.lua's lock does.
    const t = performance.now();
    const q = core.queue(queue);
    const lockedFor = (core.reapLock.get(queue) ?? -Infinity) - t;
    if (lockedFor > 0) return leaseOps.withNextDue(core.ctx, q, { requeued: [], failed: [] }, lockedFor);
    const r = leaseOps.reap(core.ctx, q, options.maxLeaseRequeues);
    const lockMs = options.lockMs ?? 100;
    const due = r.nextDueMs ?? 0;
    core.reapLock.set(queue, t + (due > 0 ? Math.min(lockMs, due) : lockMs));
    return r;
  });
}

export function workWaiter(core: MemoryCore): QueuesWaiter {
  const inner = queuesWaiter((queue) => {
    assertQueueName(queue);
    return core.marker(queue);
  });
  const waiter: QueuesWaiter = {
    wait: (queues, ms) => inner.wait(queues, ms),
    interrupt: () => inner.interrupt(),
    putBack: (queue) => inner.putBack(queue),
    close: () => {
      core.waiters.delete(waiter);
      inner.close();
    },
  };
  if (core.closed) inner.close();
  else core.waiters.add(waiter);
  return waiter;
}
