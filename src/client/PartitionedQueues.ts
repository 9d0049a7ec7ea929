// The Client's view of partitioned queues (docs/partitions.md): where a new job goes, which stored
// queue holds a job, a partitioned queue listed as one, and the change of a queue's partition
// count. The routing rules themselves are QueueRouter's; the naming rules store/partitions.ts's.

import { PartitionsInUseError, ValidationError } from '../errors.js';
import type { JobRecord, ListQuery, Store } from '../store/types.js';
import { assertQueueName } from '../store/keys.js';
import { MAX_PARTITIONS, partitionQueue, partitionedId } from '../store/partitions.js';
import { QueueRouter } from './QueueRouter.js';
import { locateJob } from './locateJob.js';
import { newJobId } from './buildNewJob.js';
import { validateOptions, type EnqueueOptions } from './validateEnqueue.js';

/** A new job's options with its stored queue, and the id that names its partition (if any). */
export interface RoutedEnqueue {
  options: EnqueueOptions | undefined;
  id?: string;
}

export class PartitionedQueues {
  /** The routing rules, with each queue's partition count as this client read it. */
  readonly router: QueueRouter;

  constructor(
    private readonly store: Store,
    private readonly defaultQueue: string,
  ) {
    this.router = new QueueRouter(store);
  }

  /**
   * Where a new job goes: for a partitioned queue, its partition's queue and an id that names
   * the partition (QueueRouter.forEnqueue). Synchronous once the queue's count is known.
   */
  route(machine: string, options: EnqueueOptions | undefined): RoutedEnqueue | Promise<RoutedEnqueue> {
    validateOptions(machine, options);
    const queue = options?.queue ?? this.defaultQueue;
    const go = (n: number): RoutedEnqueue => {
      const r = this.router.forEnqueue(queue, n, options ?? {});
      if (r.partition === undefined) return { options };
      return { options: { ...options, queue: r.queue }, id: partitionedId(r.partition, newJobId()) };
    };
    const n = this.router.partitions(queue);
    return n instanceof Promise ? n.then(go) : go(n);
  }

  /**
   * The stored queue of job `id` named with `queue` (undefined: the store looks in every queue):
   * the partition its id names, or for an id made before the queue was partitioned, wherever
   * it is (locateJob.ts).
   */
  async storedQueue(id: string, queue: string | undefined): Promise<string | undefined> {
    if (queue === undefined) return undefined;
    const n = this.router.partitions(queue);
    return locateJob(this.store, queue, id, n instanceof Promise ? await n : n);
  }

  /** Job `id` of `queue`, in the stored queue that holds it (storedQueue). */
  async findJob(id: string, queue: string | undefined): Promise<JobRecord | null> {
    return this.store.getJob(id, await this.storedQueue(id, queue));
  }

  /**
   * A page of the queue's jobs. A partitioned queue is listed as one: its own name's jobs, then
   * each partition's in turn (the cursor, `<part>/<cursor>`, says where the next page starts).
   */
  async list(query: Partial<ListQuery>): Promise<{ jobs: JobRecord[]; cursor: string | null }> {
    const queue = query.queue ?? this.defaultQueue;
    const count = this.router.partitions(queue);
    const n = count instanceof Promise ? await count : count;
    if (n <= 1) return this.store.list({ ...query, queue });
    const limit = query.limit ?? 50;
    const m = /^(\d+)\/(.*)$/.exec(query.cursor ?? '');
    if (query.cursor !== undefined && !m)
      throw new ValidationError(`cursor '${query.cursor}' is not a cursor of this partitioned queue`, {
        field: 'cursor',
        queue,
      });
    // Part 0 is the queue's own name; part i + 1 is partition i.
    let part = m ? Number(m[1]) : 0;
    let cursor: string | undefined = m && m[2] !== '' ? m[2] : undefined;
    const jobs: JobRecord[] = [];
    while (part <= n && jobs.length < limit) {
      const stored = part === 0 ? queue : partitionQueue(queue, part - 1);
      const page = await this.store.list({ ...query, queue: stored, cursor, limit: limit - jobs.length });
      jobs.push(...page.jobs);
      if (page.cursor !== null) return { jobs, cursor: `${part}/${page.cursor}` };
      part++;
      cursor = undefined;
    }
    return { jobs, cursor: part <= n ? `${part}/` : null };
  }

  /**
   * Splits `queue` into `partitions` partitions (Client.configureQueue). Refused with
   * PARTITIONS_IN_USE while the queue or a partition of it holds any job; the same count again
   * is a no-op.
   */
  async configure(queue: string, settings: { partitions: number }): Promise<void> {
    assertQueueName(queue);
    this.router.forEnqueue(queue, 1, {}); // refuses a partition's own name
    const n = settings?.partitions;
    if (!Number.isInteger(n) || n < 1 || n > MAX_PARTITIONS)
      throw new ValidationError(`partitions must be an integer from 1 to ${MAX_PARTITIONS} (got ${n})`, {
        field: 'partitions',
        queue,
      });
    const current = await this.store.partitions(queue);
    if (current === n) return void this.router.remember(queue, n);
    const stored = [
      queue,
      ...Array.from({ length: current > 1 ? current : 0 }, (_, i) => partitionQueue(queue, i)),
    ];
    for (const q of stored) {
      const counts = await this.store.counts(q);
      if (Object.values(counts).some((c) => c > 0)) throw new PartitionsInUseError(queue, current, n);
    }
    await this.store.setPartitions(queue, n);
    this.router.remember(queue, n);
  }
}
