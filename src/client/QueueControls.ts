// The Client's queue-wide flow controls (docs/flow-control.md): pause and resume a queue, set
// its concurrency limits at run time, read its limits with their current use. A partitioned
// queue is stored as its own name plus N partitions (store/partitions.ts): each change is made
// on every one of them, so supervisors of any partition obey it.

import { ValidationError } from '../errors.js';
import { assertQueueName } from '../store/keys.js';
import { partitionQueue, splitPartition } from '../store/partitions.js';
import { FAIRNESS, KEY_STRATEGIES, RATE_MODES } from '../store/roles/FlowControl.js';
import type {
  FlowControl,
  GateUse,
  Fairness,
  KeyStrategy,
  KeyUse,
  QueueFlow,
  QueueFlowChange,
  QueueLimits,
  RateLimit,
} from '../store/types.js';
import type { QueueRouter } from './QueueRouter.js';

/**
 * The limits of one machine of a queue: its own concurrency (gate 'm:<machine>') or the shared
 * limit it counts against (gate 's:<name>'), and its own throttle (`rateLimit`, a GCRA per
 * machine; `null` clears it). A field left out is kept.
 */
export type MachineLimitsChange =
  | { concurrency: number; shared?: never; rateLimit?: RateLimit | null }
  | { shared: string; concurrency?: never; rateLimit?: RateLimit | null }
  | { rateLimit: RateLimit | null; concurrency?: never; shared?: never };

/** What `setQueueLimits` takes: a limit to set, `null` to clear it, absent to keep it. */
export interface QueueLimitsChange {
  concurrency?: {
    total?: number | null;
    perKey?: number | null;
    strategy?: KeyStrategy;
    /**
     * Between concurrency keys: 'roundRobin' alternates the keys (a key's next job enters the
     * line as its previous one starts); 'fifo' (the default) starts jobs in queue order.
     */
    fairness?: Fairness;
  };
  /** The throttle: at most `limit` + `burst` starts in any `perMs` window; `null` clears it. */
  rateLimit?: RateLimit | null;
  /** The throttle of each concurrency key on its own (one GCRA per key); `null` clears it. */
  keyRateLimit?: RateLimit | null;
  /**
   * Limits of single machines of the queue: its concurrency (its gate 'm:<machine>'), or the
   * shared limit it counts against (gate 's:<name>', set in `shared`), and its throttle
   * (`rateLimit`); `null` takes all of the machine's away.
   */
  machines?: Record<string, MachineLimitsChange | null>;
  /** Named limits that the machines naming them share (gate 's:<name>'); `null` clears one. */
  shared?: Record<string, { concurrency: number } | null>;
}

/** A queue's gate and use, its partitions summed (each partition's own in `partitions`). */
export interface QueueLimitsView extends QueueFlow {
  queue: string;
  /** Per stored queue (the queue's own name and each partition), when partitioned. */
  partitions?: (QueueFlow & { queue: string })[];
}

/** A throttle as given, checked: limit and perMs positive integers, burst >= 0, mode wait|skip. */
function checkRate(r: RateLimit, field: string, queue: string): RateLimit {
  const whole = (v: unknown, min: number) => Number.isInteger(v) && (v as number) >= min;
  if (
    typeof r !== 'object' ||
    !whole(r.limit, 1) ||
    !whole(r.perMs, 1) ||
    !whole(r.burst ?? 0, 0) ||
    (r.mode !== undefined && !RATE_MODES.includes(r.mode))
  )
    throw new ValidationError(
      `${field} must be { limit, perMs, burst?, mode? }: limit and perMs positive integers, burst an integer >= 0, mode 'wait' or 'skip'; or null to clear it`,
      { field, queue },
    );
  return {
    limit: r.limit,
    perMs: r.perMs,
    burst: r.burst ?? 0,
    ...(r.mode === 'skip' ? { mode: r.mode } : {}),
  };
}

/** `machines` and `shared` as the store's gates (FlowControl.ts: ids 'm:<machine>', 's:<name>'). */
function machineGates(
  limits: QueueLimitsChange,
  queue: string,
): Pick<QueueFlowChange, 'gates' | 'machineGates' | 'machineRateLimits'> {
  const gates: Record<string, number | null> = {};
  const machineGates: Record<string, string | null> = {};
  const machineRateLimits: Record<string, RateLimit | null> = {};
  const bad = (field: string, why: string) => new ValidationError(`${field} ${why}`, { field, queue });
  const count = (v: unknown, field: string): number => {
    if (!Number.isInteger(v) || (v as number) < 1) throw bad(field, 'must be a positive integer');
    return v as number;
  };
  for (const [name, v] of Object.entries(limits.shared ?? {})) {
    if (name === '') throw bad('shared', 'names must not be empty');
    gates[`s:${name}`] = v === null ? null : count(v?.concurrency, `shared.${name}.concurrency`);
  }
  for (const [m, v] of Object.entries(limits.machines ?? {})) {
    if (m === '') throw bad('machines', 'names must not be empty');
    const shape = 'must be { concurrency?, shared?, rateLimit? } (concurrency or shared, not both), or null';
    if (v === null) {
      machineGates[m] = null;
      gates[`m:${m}`] = null;
      machineRateLimits[m] = null;
      continue;
    }
    if (
      typeof v !== 'object' ||
      Object.keys(v).some((f) => !['concurrency', 'shared', 'rateLimit'].includes(f))
    )
      throw bad(`machines.${m}`, shape);
    const { concurrency, shared, rateLimit } = v as Record<string, unknown>;
    if (concurrency !== undefined && shared !== undefined) throw bad(`machines.${m}`, shape);
    if (concurrency === undefined && shared === undefined && rateLimit === undefined)
      throw bad(`machines.${m}`, shape);
    if (shared !== undefined) {
      if (typeof shared !== 'string' || shared === '')
        throw bad(`machines.${m}.shared`, 'must be a non-empty name');
      machineGates[m] = `s:${shared}`;
      gates[`m:${m}`] = null;
    } else if (concurrency !== undefined) {
      gates[`m:${m}`] = count(concurrency, `machines.${m}.concurrency`);
      machineGates[m] = `m:${m}`;
    }
    if (rateLimit !== undefined)
      machineRateLimits[m] =
        rateLimit === null ? null : checkRate(rateLimit as RateLimit, `machines.${m}.rateLimit`, queue);
  }
  return {
    ...(Object.keys(gates).length > 0 ? { gates } : {}),
    ...(Object.keys(machineGates).length > 0 ? { machineGates } : {}),
    ...(Object.keys(machineRateLimits).length > 0 ? { machineRateLimits } : {}),
  };
}

export class QueueControls {
  constructor(
    private readonly store: FlowControl,
    private readonly router: QueueRouter,
  ) {}

  pause(queue: string): Promise<void> {
    return this.change(queue, { paused: true });
  }

  resume(queue: string): Promise<void> {
    return this.change(queue, { paused: false });
  }

  setLimits(queue: string, limits: QueueLimitsChange): Promise<void> {
    if (typeof limits !== 'object' || limits === null)
      throw new ValidationError('limits must be an object', { field: 'limits', queue });
    const c = limits.concurrency ?? {};
    const change: QueueFlowChange = {};
    for (const f of ['total', 'perKey'] as const) {
      const v = c[f];
      if (v === undefined) continue;
      if (v !== null && !(Number.isInteger(v) && v >= 1))
        throw new ValidationError(
          `concurrency.${f} must be a positive integer, or null to clear it (got ${String(v)})`,
          {
            field: `concurrency.${f}`,
            queue,
          },
        );
      change[f] = v;
    }
    if (c.strategy !== undefined) {
      if (!KEY_STRATEGIES.includes(c.strategy))
        throw new ValidationError(
          `concurrency.strategy must be one of ${KEY_STRATEGIES.join(', ')} (got ${String(c.strategy)})`,
          {
            field: 'concurrency.strategy',
            queue,
          },
        );
      change.strategy = c.strategy;
    }
    if (c.fairness !== undefined) {
      if (!FAIRNESS.includes(c.fairness))
        throw new ValidationError(
          `concurrency.fairness must be one of ${FAIRNESS.join(', ')} (got ${String(c.fairness)})`,
          { field: 'concurrency.fairness', queue },
        );
      change.fairness = c.fairness;
    }
    for (const field of ['rateLimit', 'keyRateLimit'] as const) {
      const r = limits[field];
      if (r !== undefined) change[field] = r === null ? null : checkRate(r, field, queue);
    }
    Object.assign(change, machineGates(limits, queue));
    return this.change(queue, change);
  }

  /** Pauses one concurrency key of `queue` (every partition): its jobs wait, other keys run. */
  pauseKey(queue: string, key: string): Promise<void> {
    return this.keyPaused(queue, key, true);
  }

  /** Resumes a paused key: its waiting jobs go back in line at their places. */
  resumeKey(queue: string, key: string): Promise<void> {
    return this.keyPaused(queue, key, false);
  }

  private async keyPaused(queue: string, key: string, paused: boolean): Promise<void> {
    if (typeof key !== 'string' || key === '')
      throw new ValidationError('the concurrency key must be a non-empty string', { field: 'key', queue });
    for (const q of await this.stored(queue)) await this.store.setKeyPaused(q, key, paused);
  }

  async limits(queue: string): Promise<QueueLimitsView> {
    const stored = await this.stored(queue);
    const flows = await Promise.all(
      stored.map(async (q) => ({ queue: q, ...(await this.store.queueFlow(q)) })),
    );
    const keys = new Map<string, KeyUse>();
    for (const f of flows)
      for (const k of f.keys) {
        const sum = keys.get(k.key) ?? { key: k.key, running: 0, waiting: 0 };
        sum.running += k.running;
        sum.waiting += k.waiting;
        if (k.paused) sum.paused = true;
        keys.set(k.key, sum);
      }
    const gates = new Map<string, GateUse>();
    for (const f of flows)
      for (const g of f.gates ?? []) {
        const sum = gates.get(g.gate) ?? { gate: g.gate, running: 0, waiting: 0 };
        sum.running += g.running;
        sum.waiting += g.waiting;
        gates.set(g.gate, sum);
      }
    const first = flows[0]!;
    return {
      queue,
      // Paused when any stored queue is (a pause reaches all of them in turn).
      paused: flows.some((f) => f.paused),
      limits: first.limits satisfies QueueLimits,
      running: flows.reduce((n, f) => n + f.running, 0),
      keys: [...keys.values()].sort((a, b) => (a.key < b.key ? -1 : 1)),
      ...(gates.size > 0 ? { gates: [...gates.values()].sort((a, b) => (a.gate < b.gate ? -1 : 1)) } : {}),
      // Throttled while every stored queue is: until the first of them allows a start.
      ...(flows.every((f) => f.throttledUntil !== undefined)
        ? { throttledUntil: Math.min(...flows.map((f) => f.throttledUntil!)) }
        : {}),
      ...(flows.length > 1 ? { partitions: flows } : {}),
    };
  }

  private async change(queue: string, change: QueueFlowChange): Promise<void> {
    for (const q of await this.stored(queue)) await this.store.setQueueFlow(q, change);
  }

  /** The stored queues of `queue`: its own name, and each partition when it has some. */
  private async stored(queue: string): Promise<string[]> {
    assertQueueName(queue);
    if (splitPartition(queue))
      throw new ValidationError(`'${queue}' names a partition: name the queue, its partitions follow`, {
        field: 'queue',
        queue,
      });
    const n = await this.router.partitions(queue);
    return [queue, ...Array.from({ length: n > 1 ? n : 0 }, (_, i) => partitionQueue(queue, i))];
  }
}
