// One job a MemoryStore claim popped from `queued`, through the gates that may hold it back: its
// key paused or full (THE FLOW GATE, lua/include/lcFlow.lua), its machine's gate full
// (lua/include/lcGate.lua), its machine over its rate (lua/include/lcMachineRate.lua), its key
// over its rate (lua/include/lcKeyGate.lua). In that order, as the branches of commit-12.lua's
// claim loop, so the two stores can be read side by side; claimJobs.ts pops and calls it per job.
// A job that passes every gate is added to the claim's `popped` (started by startClaimed.ts).

import type { MemoryLifecycle } from './MemoryLifecycle.js';
import { tokenWorker } from './tokenWorker.js';
import type { QueueState } from './QueueState.js';
import { ZSet } from './ZSet.js';
import { keyDue, keyRateAt } from './keyGate.js';
import { machineRate, machineRateAt, machineRateWait } from './machineRate.js';

/** What one claim keeps across the jobs it pops (claimJobs.ts), its settings read once. */
export interface ClaimPass {
  lc: MemoryLifecycle;
  q: QueueState;
  now: number;
  /** A key throttle, key hold or paused key existed when the claim began (FlowState.keyGate). */
  keyGate: boolean;
  /** A machine throttle existed when the claim began (FlowState.machineRated). */
  mrated: boolean;
  perKey: number | undefined;
  /** Jobs of this claim already taking a slot of each key, and of each machine gate. */
  taking: Map<string, number>;
  takingGate: Map<string, number>;
  /** The jobs that passed the gates, to start, in order. */
  popped: string[];
}

/**
 * A job set aside in its key's line goes at its place: its score in `queued`, or on a
 * roundRobin queue its own place (a head entered at a fresh score, behind its band, and must
 * not fall behind its key's later jobs: commit-12.lua's linePlace).
 */
function linePlace(q: QueueState, e: { member: string; score: number }): number {
  return q.flow.roundRobin ? (q.jobs.get(e.member)?.queueScore ?? e.score) : e.score;
}

/** One popped job: set aside in its key's line (true), in its gate's line, cancelled, or to start. */
export function claimOne(
  pass: ClaimPass,
  e: { member: string; score: number },
  key: string | undefined,
): boolean {
  const { lc, q, now, keyGate, mrated, perKey, taking, takingGate } = pass;
  const flow = q.flow;
  if (key !== undefined && keyGate && flow.pausedKeys.has(key)) {
    // A PAUSED KEY: into its line at its place; its resume puts it back.
    flow.waitingOf(key).add(e.member, linePlace(q, e));
    return true;
  }
  if (key !== undefined && perKey !== undefined) {
    // Its key's running jobs plus those of this claim already: full, it waits for a slot.
    const held = (flow.holders.get(key)?.size ?? 0) + (taking.get(key) ?? 0);
    if (held >= perKey) {
      const strategy = flow.limits.strategy;
      const j = q.jobs.get(e.member)!;
      if (strategy === 'cancelNewest') {
        // CANCEL NEWEST (as commit-12.lua): ends cancelled, unrun, saying why.
        const reason = `concurrency key ${key} is full (perKey ${perKey}, strategy cancelNewest)`;
        lc.move(q, j, 'cancelled', {
          kind: 'cancelled',
          log: [JSON.stringify({ type: 'cancelled', reason })],
        });
        return false;
      }
      if (strategy === 'cancelInProgress') {
        // CANCEL IN PROGRESS: one running job of the key not yet asked to stop is asked now.
        for (const hid of flow.holders.get(key) ?? []) {
          const h = q.jobs.get(hid);
          const worker = tokenWorker(h?.token);
          if (h && worker && !h.cancelRequested) {
            const reason = `a newer job of concurrency key ${key} (${j.id}) replaces it (strategy cancelInProgress)`;
            lc.requestCancel(q, h, worker, reason);
            break;
          }
        }
      }
      flow.waitingOf(key).add(e.member, linePlace(q, e));
      return true;
    }
  }
  // ITS MACHINE'S GATE IS FULL (lua/include/lcGate.lua): it waits in the gate's line.
  const machine = q.jobs.get(e.member)?.machine ?? '';
  const gate = flow.gateLimits.size > 0 ? flow.gateOf(machine) : undefined;
  if (gate && (flow.gateHolders.get(gate.gate)?.size ?? 0) + (takingGate.get(gate.gate) ?? 0) >= gate.limit) {
    let line = flow.gateLines.get(gate.gate);
    if (!line) flow.gateLines.set(gate.gate, (line = new ZSet()));
    line.add(e.member, e.score);
    return false;
  }
  // OVER ITS MACHINE'S RATE (machineRate.ts): in mode 'skip' ended cancelled, unrun; else it
  // waits in the machine's rate line, the machine due when its rate allows.
  const mrate = mrated ? machineRate(flow, machine) : undefined;
  const mAt = mrate && machineRateAt(flow, machine, now, mrate, false);
  if (mrate && mAt !== undefined) {
    if (mrate.skip) {
      const reason = `machine ${machine} is over its rate limit (mode skip)`;
      lc.move(q, q.jobs.get(e.member), 'cancelled', {
        kind: 'cancelled',
        log: [JSON.stringify({ type: 'cancelled', reason })],
      });
    } else machineRateWait(flow, e.member, machine, e.score, mAt);
    return false;
  }
  if (key !== undefined && keyGate) {
    const at = keyRateAt(flow, key, now);
    if (at !== undefined) {
      // OVER ITS KEY'S RATE (or held): in mode 'skip' ended cancelled, unrun; else it waits in
      // its key's line, the key due when its rate allows.
      if (flow.limits.keyRateLimit?.mode === 'skip') {
        const reason = `concurrency key ${key} is over its rate limit (mode skip)`;
        lc.move(q, q.jobs.get(e.member), 'cancelled', {
          kind: 'cancelled',
          log: [JSON.stringify({ type: 'cancelled', reason })],
        });
        return false;
      }
      flow.waitingOf(key).add(e.member, linePlace(q, e));
      keyDue(flow, key, at);
      return true;
    }
  }
  // Its start spends its machine's rate (only now: a job held back by its key spends none).
  if (mrate) machineRateAt(flow, machine, now, mrate, true);
  if (key !== undefined && perKey !== undefined) taking.set(key, (taking.get(key) ?? 0) + 1);
  if (gate) takingGate.set(gate.gate, (takingGate.get(gate.gate) ?? 0) + 1);
  pass.popped.push(e.member);
  return false;
}
