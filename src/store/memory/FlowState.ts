// One queue's flow gate in a MemoryStore: what RedisStore keeps under `flow`, `ck:<key>`,
// `ckwait:<key>` and `ckkeys` (lua/include/lcFlow.lua holds the layout and the invariants, which
// hold here alike: a job is among its key's holders exactly while it is loading or working,
// removed only by MemoryLifecycle.leave; a job in a key's waiting line is queued and in neither
// `queued` nor `delayed`). THE KEY GATE (lua/include/lcKeyGate.lua: ktat, kdue, kpaused) is
// `keyTat`, `keyDue` and `pausedKeys`; memory/keyGate.ts applies it.

import type { QueueLimits } from '../types.js';
import { ZSet } from './ZSet.js';

export interface FlowJson {
  paused: boolean;
  tat?: number;
  byRun?: boolean;
  limits: QueueLimits;
  waiting: [string, [string, number][]][];
  keyTat?: [string, number][];
  keyDue?: [string, number][];
  pausedKeys?: string[];
  gateLimits?: [string, number][];
  machineGates?: [string, string][];
  gateLines?: [string, [string, number][]][];
  rrq?: [string, number][];
  machineTat?: [string, number][];
  machineDue?: [string, number][];
}

export class FlowState {
  paused = false;
  limits: QueueLimits = {};
  /** Limits were set at run time: a definition's are not written (lua/flow-3.lua's WHO WINS). */
  byRun = false;
  /** The throttle's GCRA state: its theoretical arrival time (store ms). */
  tat?: number;
  /** The running jobs of each key (ck:<key>): kept only while `limits.perKey` is set (slotsFrom). */
  readonly holders = new Map<string, Set<string>>();
  /** Jobs set aside because their key was full, by their place in line (ckwait:<key>). */
  readonly waiting = new Map<string, ZSet>();
  /** Each key's GCRA state and hold (ktat). */
  readonly keyTat = new Map<string, number>();
  /** Keys whose line waits for their rate, by when it allows the next start (kdue). */
  readonly keyDue = new ZSet();
  /** The paused keys (kpaused). */
  readonly pausedKeys = new Set<string>();
  /**
   * THE ROUND ROBIN (limits.fairness 'roundRobin', lua/include/lcFlow.lua): how many jobs of each
   * key are in `queued`, its heads (rrq); never more than there are (FlowLines.enterQueued).
   */
  readonly rrq = new Map<string, number>();

  /** The queue alternates its keys (fairness 'roundRobin'); a key may have this many heads. */
  get roundRobin(): boolean {
    return this.limits.fairness === 'roundRobin';
  }
  get heads(): number {
    return this.limits.perKey ?? 1;
  }

  /** THE MACHINE GATES (lua/include/lcGate.lua): each gate's limit, by gate id (mgates 'g:'). */
  readonly gateLimits = new Map<string, number>();
  /** Each gated machine's gate id (mgates 'm:'). */
  readonly machineGates = new Map<string, string>();
  /** The running jobs holding a slot of each gate (gh:<gate>). */
  readonly gateHolders = new Map<string, Set<string>>();
  /**
   * The jobs set aside because their gate was full, by place (gwait:<gate>); gate 'r:<machine>'
   * holds those waiting for their machine's rate (machineRate.ts).
   */
  readonly gateLines = new Map<string, ZSet>();
  /** THE MACHINE THROTTLE (lua/include/lcMachineRate.lua): each machine's GCRA state (mtat). */
  readonly machineTat = new Map<string, number>();
  /** Machines whose rate line waits, by when their rate allows a start (mdue). */
  readonly machineDue = new ZSet();

  /** A machine throttle exists: the claim looks at a job's machine rate (mrated). */
  get machineRated(): boolean {
    return this.limits.machineRateLimits !== undefined;
  }

  /** The gate of machine `m` and its limit, when it has one. */
  gateOf(m: string): { gate: string; limit: number } | undefined {
    const gate = this.machineGates.get(m);
    const limit = gate === undefined ? undefined : this.gateLimits.get(gate);
    return gate !== undefined && limit !== undefined ? { gate, limit } : undefined;
  }

  /** A key throttle, key hold or paused key exists: the claim looks at a job's key (keyGate). */
  get keyGate(): boolean {
    return this.limits.keyRateLimit !== undefined || this.keyTat.size > 0 || this.pausedKeys.size > 0;
  }

  holdersOf(key: string): Set<string> {
    let s = this.holders.get(key);
    if (!s) this.holders.set(key, (s = new Set()));
    return s;
  }

  waitingOf(key: string): ZSet {
    let z = this.waiting.get(key);
    if (!z) this.waiting.set(key, (z = new ZSet()));
    return z;
  }

  /**
   * THE SLOTS are kept only while perKey is set (lua/include/lcFlow.lua's invariants): rebuilt
   * here from the running jobs (their key, by id) when it is set, dropped when it is not. Called
   * when perKey changes (flowOps.ts, as flow-3.lua) and when a file is read.
   */
  slotsFrom(running: Iterable<[string, string | undefined]>): void {
    this.holders.clear();
    if (this.limits.perKey === undefined) return;
    for (const [id, key] of running) if (key !== undefined) this.holdersOf(key).add(id);
  }

  /** Drops a key's empty entries (the ckkeys set lists only keys in use). */
  tidy(key: string): void {
    if (this.holders.get(key)?.size === 0) this.holders.delete(key);
    if (this.waiting.get(key)?.size === 0) this.waiting.delete(key);
  }

  /** The holders are not kept: a restart finds no job running, and rebuilds them from the jobs. */
  toJSON(): FlowJson {
    return {
      paused: this.paused,
      limits: this.limits,
      ...(this.tat !== undefined ? { tat: this.tat } : {}),
      ...(this.byRun ? { byRun: true } : {}),
      waiting: [...this.waiting].map(([k, z]) => [k, z.entries()]),
      ...(this.keyTat.size > 0 ? { keyTat: [...this.keyTat] } : {}),
      ...(this.keyDue.size > 0 ? { keyDue: this.keyDue.entries() } : {}),
      ...(this.pausedKeys.size > 0 ? { pausedKeys: [...this.pausedKeys] } : {}),
      ...(this.gateLimits.size > 0 ? { gateLimits: [...this.gateLimits] } : {}),
      ...(this.machineGates.size > 0 ? { machineGates: [...this.machineGates] } : {}),
      ...(this.gateLines.size > 0
        ? { gateLines: [...this.gateLines].map(([g, z]) => [g, z.entries()]) }
        : {}),
      ...(this.rrq.size > 0 ? { rrq: [...this.rrq] } : {}),
      ...(this.machineTat.size > 0 ? { machineTat: [...this.machineTat] } : {}),
      ...(this.machineDue.size > 0 ? { machineDue: this.machineDue.entries() } : {}),
    };
  }

  static fromJSON(json: FlowJson | undefined): FlowState {
    const f = new FlowState();
    if (!json) return f;
    f.paused = json.paused;
    f.limits = json.limits;
    f.tat = json.tat;
    f.byRun = json.byRun === true;
    for (const [k, entries] of json.waiting) {
      const z = f.waitingOf(k);
      for (const [id, score] of entries) z.add(id, score);
    }
    for (const [k, t] of json.keyTat ?? []) f.keyTat.set(k, t);
    for (const [k, t] of json.keyDue ?? []) f.keyDue.add(k, t);
    for (const k of json.pausedKeys ?? []) f.pausedKeys.add(k);
    for (const [g, n] of json.gateLimits ?? []) f.gateLimits.set(g, n);
    for (const [m, g] of json.machineGates ?? []) f.machineGates.set(m, g);
    for (const [k, n] of json.rrq ?? []) f.rrq.set(k, n);
    for (const [m, t] of json.machineTat ?? []) f.machineTat.set(m, t);
    for (const [m, t] of json.machineDue ?? []) f.machineDue.add(m, t);
    for (const [g, entries] of json.gateLines ?? []) {
      const z = new ZSet();
      for (const [id, score] of entries) z.add(id, score);
      f.gateLines.set(g, z);
    }
    return f;
  }
}
