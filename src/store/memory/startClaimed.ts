// The start of one job a MemoryStore claim took (it passed every gate, claimOne.ts): its lease
// (as lua/include/lcClaim.lua: status loading or working, token, claim time, deadline in
// `active`, through MemoryLifecycle.move), the slots it holds while it runs, and what its
// worker is handed. Separate from the claim's pops and gates (claimJobs.ts) as lcClaim is from
// commit-12.lua's loop. One difference in order: commit-12.lua ends a child whose parent is gone
// before the gates, MemoryStore here, at its start; either way it ends cancelled, unrun.

import type { ClaimRequest, ClaimedJob } from '../types.js';
import type { MemoryLifecycle } from './MemoryLifecycle.js';
import type { QueueState } from './QueueState.js';
import { FINAL } from '../lifecycleTable.js';

/** Starts job `id` under lease `token` until `deadline`: what its worker gets, or undefined. */
export function startClaimed(
  lc: MemoryLifecycle,
  q: QueueState,
  claim: ClaimRequest,
  id: string,
  token: string,
  deadline: number,
): ClaimedJob | undefined {
  const flow = q.flow;
  const j = q.jobs.get(id);
  if (!j) return undefined;
  // A child whose parent is on this queue: a parent that is gone, finished or being cancelled
  // ends it cancelled here, unrun.
  let parentGone: string | undefined;
  if (j.parentId !== undefined && !j.parentQueue) {
    const p = q.jobs.get(j.parentId);
    if (!p) parentGone = 'missing';
    else if (p.cancelRequested) parentGone = 'cancelled';
    else if (FINAL.has(p.status)) parentGone = p.status;
  }
  if (parentGone) {
    lc.move(q, j, 'cancelled', {
      kind: 'cancelled',
      log: [JSON.stringify({ type: 'cancelled', reason: `parent ${parentGone}` })],
    });
    return undefined;
  }
  const status = !j.snapshot && claim.loadMachines.includes(j.machine) ? 'loading' : 'working';
  const attempt = j.attempt ?? 1;
  const r = lc.move(q, j, status, {
    kind: 'claimed',
    claim: {
      token,
      deadline,
      entry: attempt > 1 ? `{"type":"claimed","attempt":${attempt}}` : '{"type":"claimed"}',
    },
  });
  if (!('moved' in r) || r.moved !== status) return undefined;
  // Holds a slot of its key while it runs (FlowState.ts; only while perKey is set).
  if (j.concurrencyKey !== undefined && flow.limits.perKey !== undefined)
    flow.holdersOf(j.concurrencyKey).add(id);
  // And a slot of its machine's gate (lua/include/lcGate.lua).
  const gate = flow.gateOf(j.machine)?.gate;
  if (gate !== undefined) flow.gateHolders.set(gate, (flow.gateHolders.get(gate) ?? new Set()).add(id));
  return {
    id,
    token,
    machine: j.machine,
    version: j.version,
    input: j.input,
    snapshot: j.snapshot,
    attempt,
    maxAttempts: j.maxAttempts,
    status,
    leaseRequeues: j.leaseRequeues ?? 0,
    retryLaters: j.retryLaters ?? 0,
    parentId: j.parentId,
    parentQueue: j.parentQueue || undefined,
    options: j.options,
    inbox: j.inboxConsumed ?? 0,
    hasInbox: j.inbox !== undefined,
    parentState: j.parentId !== undefined && !j.parentQueue ? 'live' : undefined,
  };
}
