// The Client's queue-wide flow controls (docs/flow-control.md): pause and resume a queue, set
// its concurrency limits at run time, read its limits with their current use. A partitioned
// queue is stored as its own name plus N partitions (store/partitions.ts): each change is made
// on every one of them, so supervisors of any partition obey it.

import { ValidationError } from '../errors.js';
import { assertQueueName } from '../store/keys.js';
import { partitionQueue, splitPartition } from '../store/partitions.js';
import { KEY_STRATEGIES } from '../store/roles/FlowControl.js';
import type {
  FlowControl,
  KeyStrategy,
  KeyUse,
  QueueFlow,
  QueueFlowChange,
  QueueLimits,
  RateLimit,
} from '../store/types.js';
import type { QueueRouter } from './QueueRouter.js';

/** What `setQueueLimits` takes: a limit to set, `null` to clear it, absent to keep it. */
export interface QueueLimitsChange {
  concurrency?: { total?: number | null; perKey?: number | null; strategy?: KeyStrategy };
  /** The throttle: at most `limit` + `burst` starts in any `perMs` window; `null` clears it. */
  rateLimit?: RateLimit | null;
}

/** A queue's gate and use, its partitions summed (each partition's own in `partitions`). */
export interface QueueLimitsView extends QueueFlow {
  queue: string;
  /** Per stored queue (the queue's own name and each partition), when partitioned. */
  partitions?: (QueueFlow & { queue: string })[];
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
    const r = limits.rateLimit;
    if (r !== undefined) {
      const whole = (v: unknown, min: number) => Number.isInteger(v) && (v as number) >= min;
      if (
        r !== null &&
        (typeof r !== 'object' || !whole(r.limit, 1) || !whole(r.perMs, 1) || !whole(r.burst ?? 0, 0))
      )
        throw new ValidationError(
          'rateLimit must be { limit, perMs, burst? }: limit and perMs positive integers, burst an integer >= 0; or null to clear it',
          { field: 'rateLimit', queue },
        );
      change.rateLimit = r === null ? null : { limit: r.limit, perMs: r.perMs, burst: r.burst ?? 0 };
    }
    return this.change(queue, change);
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
        keys.set(k.key, sum);
      }
    const first = flows[0]!;
    return {
      queue,
      // Paused when any stored queue is (a pause reaches all of them in turn).
      paused: flows.some((f) => f.paused),
      limits: first.limits satisfies QueueLimits,
      running: flows.reduce((n, f) => n + f.running, 0),
      keys: [...keys.values()].sort((a, b) => (a.key < b.key ? -1 : 1)),
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
