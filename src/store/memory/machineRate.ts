// THE MACHINE THROTTLE in a MemoryStore (as lua/include/lcMachineRate.lua, which holds the rules
// and the invariants): one GCRA per machine (gcra.ts); a job over its machine's rate waits in the
// machine's rate line, the gate line 'r:<machine>' (so it is listed, counted and left as any gate
// line), the machine due (machineDue) when its rate allows a start.

import type { FlowState } from './FlowState.js';
import type { MemoryLifecycle } from './MemoryLifecycle.js';
import type { QueueState } from './QueueState.js';
import { ZSet } from './ZSet.js';
import { dueAt, gcraAt, gcraOf, gcraRoom, type Gcra } from './gcra.js';

/** The throttle of machine `m` (undefined: none), and whether it skips. */
export function machineRate(flow: FlowState, m: string): (Gcra & { skip: boolean }) | undefined {
  const r = flow.limits.machineRateLimits?.[m];
  return r ? { ...gcraOf(r), skip: r.mode === 'skip' } : undefined;
}

/** Machine `m` may start one job now (undefined; with `spend` spent); else when it may. */
export function machineRateAt(
  flow: FlowState,
  m: string,
  now: number,
  g: Gcra,
  spend: boolean,
): number | undefined {
  return gcraAt(flow.machineTat, m, now, g, spend);
}

/** Job `id` of machine `m` waits for its machine's rate until `at`, at `score` (its place). */
export function machineRateWait(flow: FlowState, id: string, m: string, score: number, at: number): void {
  const gate = `r:${m}`;
  let line = flow.gateLines.get(gate);
  if (!line) flow.gateLines.set(gate, (line = new ZSet()));
  line.add(id, score);
  dueAt(flow.machineDue, m, at);
}

/** The machines whose rate now allows: the heads of their rate lines back into `queued`. */
export function releaseDueMachines(lc: MemoryLifecycle, q: QueueState, now: number): void {
  const flow = q.flow;
  for (const { member: m } of flow.machineDue.popUpTo(now, 100)) {
    const gate = `r:${m}`;
    const line = flow.gateLines.get(gate);
    if (!line) continue;
    const { n, again } = gcraRoom(flow.machineTat, m, now, machineRate(flow, m) ?? gcraOf(undefined));
    for (let i = 0; i < n; i++) {
      const head = line.popMin();
      if (!head) break;
      lc.lines.enterQueued(q, head.member, head.score, q.jobs.get(head.member)?.concurrencyKey);
    }
    if (line.size === 0) flow.gateLines.delete(gate);
    else if (again !== undefined) dueAt(flow.machineDue, m, again);
  }
}
