// One queue's flow gate in a MemoryStore: what RedisStore keeps under `flow`, `ck:<key>`,
// `ckwait:<key>` and `ckkeys` (lua/include/lcFlow.lua holds the layout and the invariants, which
// hold here alike: a job is among its key's holders exactly while it is loading or working,
// removed only by MemoryLifecycle.leave; a job in a key's waiting line is queued and in neither
// `queued` nor `delayed`).

import type { QueueLimits } from '../types.js';
import { ZSet } from './ZSet.js';

export interface FlowJson {
  paused: boolean;
  tat?: number;
  byRun?: boolean;
  limits: QueueLimits;
  waiting: [string, [string, number][]][];
}

export class FlowState {
  paused = false;
  limits: QueueLimits = {};
  /** Limits were set at run time: a definition's are not written (lua/flow-3.lua's WHO WINS). */
  byRun = false;
  /** The throttle's GCRA state: its theoretical arrival time (store ms). */
  tat?: number;
  /** The running jobs of each key (ck:<key>). */
  readonly holders = new Map<string, Set<string>>();
  /** Jobs set aside because their key was full, by their place in line (ckwait:<key>). */
  readonly waiting = new Map<string, ZSet>();

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
    return f;
  }
}
