// MemoryStore's FlowControl role (as redis/flowOps.ts and lua/flow-3.lua).

import { ValidationError } from '../../errors.js';
import { nextStartAt } from '../roles/FlowControl.js';
import type { Fairness, QueueFlow, QueueFlowChange, QueueLimits, RateLimit } from '../types.js';
import type { FlowState } from './FlowState.js';
import type { MemoryCore } from './MemoryCore.js';
import type { QueueState } from './QueueState.js';
import { checkFlowChange } from './checkFlowChange.js';

export function setQueueFlow(core: MemoryCore, queue: string, change: QueueFlowChange): Promise<void> {
  return core.op(() => {
    checkFlowChange(queue, change);
    const q = core.queue(queue);
    const w = flowWrite(q.flow, change);
    if (w === undefined) return;
    writeLimits(q, change, w);
    writeMachineRates(q.flow, w.machineRates);
    writeGates(q.flow, change);
    releaseSetAside(core, q);
  });
}

/** The throttles and fairness a change writes (undefined: left as they are). */
interface FlowWrite {
  rateLimit: RateLimit | null | undefined;
  keyRateLimit: RateLimit | null | undefined;
  fairness: Fairness | undefined;
  machineRates: [string, RateLimit | null][];
}

/**
 * WHO WINS (as flow-3.lua): run-time limits mark the queue for good (`byRun`, set here); a
 * definition's limits are then not written, and otherwise only what differs. Undefined: the
 * change writes nothing.
 */
function flowWrite(flow: FlowState, change: QueueFlowChange): FlowWrite | undefined {
  let r = change.rateLimit;
  let kr = change.keyRateLimit;
  let fairness = change.fairness;
  if (fairness === (flow.limits.fairness ?? 'fifo')) fairness = undefined;
  let machineRates = Object.entries(change.machineRateLimits ?? {});
  if (change.fromDefinition) {
    if (flow.byRun) return undefined;
    // An unchanged machine throttle is not written (it keeps its GCRA state).
    machineRates = machineRates.filter(([m, v]) => !sameRate(v, flow.limits.machineRateLimits?.[m]));
    if (sameRate(r, flow.limits.rateLimit)) r = undefined;
    if (sameRate(kr, flow.limits.keyRateLimit)) kr = undefined;
    if (
      sameLimit(change.total, flow.limits.total) &&
      sameLimit(change.perKey, flow.limits.perKey) &&
      r === undefined &&
      kr === undefined &&
      fairness === undefined &&
      machineRates.length === 0 &&
      Object.entries(change.gates ?? {}).every(([g, v]) => (v ?? undefined) === flow.gateLimits.get(g)) &&
      Object.entries(change.machineGates ?? {}).every(
        ([m, g]) => (g ?? undefined) === flow.machineGates.get(m),
      )
    )
      return undefined;
  } else if (
    change.total !== undefined ||
    change.perKey !== undefined ||
    r !== undefined ||
    kr !== undefined ||
    // A shared limit's value ('s:' gates) is set at run time only: it does not mark the queue.
    Object.keys(change.gates ?? {}).some((g) => !g.startsWith('s:')) ||
    Object.keys(change.machineGates ?? {}).length > 0 ||
    change.strategy !== undefined ||
    fairness !== undefined ||
    machineRates.length > 0
  )
    flow.byRun = true;
  return { rateLimit: r, keyRateLimit: kr, fairness, machineRates };
}

/** The queue's own limits: fairness, throttles, strategy, pause, total and perKey. */
function writeLimits(q: QueueState, change: QueueFlowChange, w: FlowWrite): void {
  const flow = q.flow;
  if (w.fairness !== undefined) {
    // A change of the fairness starts its head counts afresh (as flow-3.lua; too low is safe).
    flow.rrq.clear();
    if (w.fairness === 'fifo') delete flow.limits.fairness;
    else flow.limits.fairness = w.fairness;
  }
  if (w.rateLimit !== undefined) {
    // A new or cleared throttle starts afresh.
    delete flow.tat;
    if (w.rateLimit === null) delete flow.limits.rateLimit;
    else flow.limits.rateLimit = stored(w.rateLimit);
  }
  if (w.keyRateLimit !== undefined) {
    // A new or cleared key throttle starts afresh: every key's state and hold, and the keys due.
    flow.keyTat.clear();
    flow.keyDue.clear();
    if (w.keyRateLimit === null) delete flow.limits.keyRateLimit;
    else flow.limits.keyRateLimit = stored(w.keyRateLimit);
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
  const slotsChange = (flow.limits.perKey === undefined) !== (limits.perKey === undefined);
  flow.limits = limits;
  if (slotsChange) flow.slotsFrom(q.runningKeys());
}

/** A new, changed or cleared machine throttle starts afresh (as flow-3.lua). */
function writeMachineRates(flow: FlowState, machineRates: [string, RateLimit | null][]): void {
  if (machineRates.length === 0) return;
  const rates = { ...flow.limits.machineRateLimits };
  for (const [m, v] of machineRates) {
    if (v === null) delete rates[m];
    else rates[m] = stored(v);
    flow.machineTat.delete(m);
  }
  const names = Object.keys(rates).sort();
  if (names.length > 0) flow.limits.machineRateLimits = Object.fromEntries(names.map((m) => [m, rates[m]!]));
  else {
    delete flow.limits.machineRateLimits;
    flow.machineTat.clear();
  }
}

/** The gates' limits and the machines' gates. */
function writeGates(flow: FlowState, change: QueueFlowChange): void {
  // Every gate line goes back below (the machines' rate lines too): none is due any more.
  flow.machineDue.clear();
  for (const [gate, v] of Object.entries(change.gates ?? {}))
    if (v === null) flow.gateLimits.delete(gate);
    else flow.gateLimits.set(gate, v);
  for (const [m, g] of Object.entries(change.machineGates ?? {}))
    if (g === null) flow.machineGates.delete(m);
    else flow.machineGates.set(m, g);
}

/** Every job set aside for a full key or gate goes back in line at its place (flow-3.lua). */
function releaseSetAside(core: MemoryCore, q: QueueState): void {
  const flow = q.flow;
  for (const [gate, z] of [...flow.gateLines]) {
    for (const [id, score] of z.entries()) q.index.queued.add(id, score);
    flow.gateLines.delete(gate);
  }
  // A key's line as the fairness now says (FlowLines.releaseLine).
  for (const key of [...flow.waiting.keys()]) core.lc.lines.releaseLine(q, key);
  core.toWake.add(q);
}

/** Pauses or resumes one concurrency key (as lua/keyPause-3.lua). */
export function setKeyPaused(core: MemoryCore, queue: string, key: string, paused: boolean): Promise<void> {
  return core.op(() => {
    if (typeof key !== 'string' || key === '')
      throw new ValidationError('the concurrency key must be a non-empty string', { field: 'key', queue });
    const q = core.queue(queue);
    const flow = q.flow;
    if (paused) {
      flow.pausedKeys.add(key);
      return;
    }
    flow.pausedKeys.delete(key);
    // Its line back in `queued` at their places (the claim sets aside what still waits; on a
    // roundRobin queue only its heads: FlowLines.releaseLine).
    core.lc.lines.releaseLine(q, key);
    flow.keyDue.delete(key);
    core.toWake.add(q);
  });
}

/** As `flow` keeps a throttle: burst always set, mode only when 'skip'. */
const stored = (v: RateLimit): RateLimit => ({
  limit: v.limit,
  perMs: v.perMs,
  burst: v.burst ?? 0,
  ...(v.mode === 'skip' ? { mode: 'skip' as const } : {}),
});

/** A definition's throttle `v` changes nothing of `cur` (flow-3.lua's WHO WINS compare). */
function sameRate(v: RateLimit | null | undefined, cur: RateLimit | undefined): boolean {
  if (v === undefined) return false;
  if (v === null) return cur === undefined;
  const s = stored(v);
  return cur?.limit === s.limit && cur.perMs === s.perMs && cur.burst === s.burst && cur.mode === s.mode;
}

/** A definition's total or perKey `v` changes nothing of `cur` (WHO WINS). */
function sameLimit(v: number | null | undefined, cur: number | undefined): boolean {
  return v === undefined || (v === null ? cur === undefined : v === cur);
}

export function queueFlow(core: MemoryCore, queue: string): Promise<QueueFlow> {
  return core.op(() => {
    const q = core.queue(queue);
    const flow = q.flow;
    // The running jobs' keys, read from `active` (slots are kept only while perKey is set:
    // FlowState.slotsFrom), as redis/flowOps.ts reads them.
    const running = new Map<string, number>();
    for (const [, key] of q.runningKeys())
      if (key !== undefined) running.set(key, (running.get(key) ?? 0) + 1);
    const keys = new Set([...running.keys(), ...flow.waiting.keys(), ...flow.pausedKeys]);
    const gateIds = [...new Set([...flow.gateHolders.keys(), ...flow.gateLines.keys()])].sort();
    const throttledUntil = nextStartAt(flow.limits.rateLimit, flow.tat, core.clock());
    return {
      paused: flow.paused,
      limits: {
        ...flow.limits,
        ...(flow.gateLimits.size > 0 ? { gates: Object.fromEntries(flow.gateLimits) } : {}),
        ...(flow.machineGates.size > 0 ? { machineGates: Object.fromEntries(flow.machineGates) } : {}),
      },
      running: q.index.active.size,
      keys: [...keys].sort().map((key) => ({
        key,
        running: running.get(key) ?? 0,
        waiting: flow.waiting.get(key)?.size ?? 0,
        ...(flow.pausedKeys.has(key) ? { paused: true as const } : {}),
      })),
      ...(gateIds.length > 0
        ? {
            gates: gateIds.map((gate) => ({
              gate,
              running: flow.gateHolders.get(gate)?.size ?? 0,
              waiting: flow.gateLines.get(gate)?.size ?? 0,
            })),
          }
        : {}),
      ...(throttledUntil !== undefined ? { throttledUntil } : {}),
    };
  }, false);
}
