// One queue's data in a MemoryStore: what RedisStore keeps under the queue's hash tag (job
// records, status indexes, fan-out records, children indexes, the outbox, idempotency keys, the
// event stream, the webhook dispatcher's state), as plain maps and sorted sets.

import { MinuteTallyState } from './MinuteTallyState.js';
import type { QueueEvent } from '../types.js';
import { COUNTED } from '../roles/Registry.js';
import { HookState } from './HookState.js';
import { FlowState } from './FlowState.js';
import type { MemoryJob } from './MemoryJob.js';
import { ZSet } from './ZSet.js';

/** A parent's fan-out record (fan:<parentId>:<group>). */
export interface FanRecord {
  total: number; // n
  policy: 'failFast' | 'collect'; // p
  finished: number; // d
  failed: number; // f
  woken: boolean; // x: the parent was woken for it
  revive: boolean; // rv
  results: Map<number, string>; // r<index>
  expiresAt?: number;
}

/** The ids of a parent's children on this queue, by their index (children:<parentId>). */
export interface ChildrenIndex {
  ids: ZSet;
  expiresAt?: number;
}

/** The indexes a queue keeps: those `counts` reports (COUNTED), and the outbox. */
export const INDEX_NAMES = [...COUNTED, 'outbox'] as const;
export type MemoryIndex = (typeof INDEX_NAMES)[number];

/** A dedupe (or idempotency) key's record: include/dedupe.lua's `<kept id>[ <pending id>]`. */
export interface DedupeRecord {
  id: string;
  next?: string;
  expiresAt: number;
}

import type { ReapedEntry } from '../fleetView.js';

export class QueueState {
  readonly jobs = new Map<string, MemoryJob>();
  readonly index: Record<MemoryIndex, ZSet>;
  /** Why each broken job was set aside (brokenwhy). */
  readonly brokenWhy = new Map<string, string>();
  readonly fans = new Map<string, FanRecord>();
  readonly children = new Map<string, ChildrenIndex>();
  readonly idempotency = new Map<string, DedupeRecord>();
  /** Dedupe keys (dd:<key>): the kept job, and with keepLast the one pending behind it. */
  readonly dedupe = new Map<string, DedupeRecord>();
  /** FIFO sequence (meta seq) and lease token counter (meta tok). */
  seq = 0;
  tok = 0;
  /** The capped event stream; `cursor` numbers its entries. */
  events: QueueEvent[] = [];
  eventSeq = 0;
  /** The webhook dispatcher's state (hooked, hookdue, hookq:*, hookmeta:*, hookcursor, hooklease). */
  hooks = new HookState();
  /** The flow gate: pause, limits, holders and waiting lines per concurrency key (FlowState.ts). */
  flow = new FlowState();
  /** The jobs the reaper took back, oldest first (reap-7.lua's `reaped`; not kept in the data file). */
  reaped: ReapedEntry[] = [];
  /** The jobs that ended, per minute (MinuteTallyState.ts). */
  tallies = new MinuteTallyState();

  constructor(readonly name: string) {
    this.index = Object.fromEntries(INDEX_NAMES.map((n) => [n, new ZSet()])) as Record<MemoryIndex, ZSet>;
  }

  /** Each running job (`active`) by id, with its concurrency key (FlowState.slotsFrom). */
  *runningKeys(): Generator<[string, string | undefined]> {
    for (const [id] of this.index.active.entries()) yield [id, this.jobs.get(id)?.concurrencyKey];
  }

  /**
   * THE RECORD'S KEYS (lua/include/recordKeys.lua's twin): a job's record goes with its webhook
   * bookkeeping (its inbox lives on the record here). Retention (leaseOps.retire) and the end of a
   * minimal record (MemoryLifecycle.finish) delete through this one place.
   */
  dropRecord(id: string): void {
    this.jobs.delete(id);
    this.hooks.meta.delete(id);
    this.hooks.metaExpiry.delete(id);
  }

  static fanKey(parentId: string, group: string): string {
    return `${parentId}:${group}`;
  }
}
