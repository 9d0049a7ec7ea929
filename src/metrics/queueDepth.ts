// The queue depths a scrape reports, read from the store's counts at most once per cache
// period however often (and however many at once) Prometheus scrapes: one read in flight, its
// answer shared. A failed read keeps the last answer (a scrape never fails on Redis).

import type { Store, QueueCounts } from '../store/types.js';
import { groupQueues, queueTotals } from '../store/queueTotals.js';

/** Most queues reported: each costs a counts() call per read. */
export const MAX_DEPTH_QUEUES = 100;

export class QueueDepth {
  private last = new Map<string, QueueCounts>();
  private readAt = -Infinity;
  private reading: Promise<Map<string, QueueCounts>> | undefined;

  constructor(
    private readonly store: Pick<Store, 'counts' | 'queues'>,
    /** Queues to report; undefined: those supervisors registered (Store.queues). */
    private readonly queues: readonly string[] | undefined,
    private readonly cacheMs: number,
  ) {}

  /** The counts per queue, at most `cacheMs` old (or the last ones, if a read failed). */
  read(): Promise<Map<string, QueueCounts>> {
    if (performance.now() - this.readAt < this.cacheMs) return Promise.resolve(this.last);
    this.reading ??= this.fetch().finally(() => (this.reading = undefined));
    return this.reading;
  }

  private async fetch(): Promise<Map<string, QueueCounts>> {
    try {
      // A partitioned queue is one series, summed over its partitions (store/queueTotals.ts).
      const names = await this.store.queues();
      const queues = (this.queues ?? [...groupQueues(names).keys()]).slice(0, MAX_DEPTH_QUEUES);
      const totals = await Promise.all(queues.map((q) => queueTotals(this.store, q)));
      this.last = new Map(queues.map((q, i) => [q, totals[i]!.get(q)!.counts]));
    } catch {
      // Redis unreachable: the last depths stand; the next scrape tries again.
    }
    this.readAt = performance.now();
    return this.last;
  }
}
