// Where a job of a queue is stored: the queue itself, or one of its partitions (docs/partitions.md;
// the naming and id rules are store/partitions.ts). A queue's partition count is read from the
// store once and kept: it cannot change while the queue holds jobs (Client.configureQueue), and
// a supervisor serving a partitioned queue serves the queue's own name too, so a job a client
// routed with a count read before the change still runs.

import type { Registry } from '../store/types.js';
import { ValidationError } from '../errors.js';
import { partitionOfKey, partitionQueue, splitPartition } from '../store/partitions.js';

/** Where one new job goes: the stored queue, and its partition (undefined: not partitioned). */
export interface EnqueueRoute {
  queue: string;
  partition: number | undefined;
}

export class QueueRouter {
  private readonly counts = new Map<string, number>();
  private readonly loading = new Map<string, Promise<number>>();
  /** Round robin over partitions; each client starts elsewhere, so clients spread too. */
  private turn = Math.floor(Math.random() * 1024);

  constructor(private readonly store: Pick<Registry, 'partitions'>) {}

  /** The queue's partition count: a number once known (no microtask), a Promise the first time. */
  partitions(queue: string): number | Promise<number> {
    const known = this.counts.get(queue);
    if (known !== undefined) return known;
    let p = this.loading.get(queue);
    if (!p) {
      p = this.store.partitions(queue).then(
        (n) => {
          this.counts.set(queue, n);
          this.loading.delete(queue);
          return n;
        },
        (err: unknown) => {
          this.loading.delete(queue);
          throw err;
        },
      );
      this.loading.set(queue, p);
    }
    return p;
  }

  /** Sets the count this client routes by (after configureQueue wrote it). */
  remember(queue: string, partitions: number): void {
    this.counts.set(queue, partitions);
  }

  /**
   * Where a new job of `queue` goes, for a queue of `n` partitions: by its partition key, else
   * by its concurrency key, else by its idempotency or dedupe key (so the key dedupes in one
   * partition: exactly), else round robin.
   *
   * A concurrency key and a different idempotency or dedupe key, without a partition key, are
   * REFUSED: each makes a promise only one partition can keep (the perKey limit counts in one
   * partition, the key dedupes in one), and routed by one the other would hold only by chance.
   * A partitionKey says which the caller routes by (docs/partitions.md).
   */
  forEnqueue(
    queue: string,
    n: number,
    keys: {
      partitionKey?: string;
      idempotencyKey?: string;
      concurrencyKey?: string;
      dedupe?: { key?: unknown };
    },
  ): EnqueueRoute {
    if (splitPartition(queue))
      throw new ValidationError(
        `options.queue names a partition ('${queue}'): name the queue, the client picks the partition`,
        { field: 'queue', queue },
      );
    if (n <= 1) return { queue, partition: undefined };
    const dedupeKey = typeof keys.dedupe?.key === 'string' ? keys.dedupe.key : undefined;
    if (keys.partitionKey === undefined)
      refuseSplitPromises(queue, keys.concurrencyKey, keys.idempotencyKey, dedupeKey);
    // A concurrency key before an idempotency key: every job of a key in one partition keeps its
    // perKey limit exact (docs/flow-control.md).
    const key = keys.partitionKey ?? keys.concurrencyKey ?? keys.idempotencyKey ?? dedupeKey;
    const partition = key !== undefined ? partitionOfKey(key, n) : this.turn++ % n;
    return { queue: partitionQueue(queue, partition), partition };
  }
}

/**
 * A job of a partitioned queue with a concurrency key and a different idempotency or dedupe key
 * (and no partitionKey): refused, naming both. Routed by the concurrency key, two enqueues with
 * one dedupe key and different concurrency keys would land in different partitions and both be
 * made; routed by the dedupe key, a concurrency key's jobs would spread and its perKey limit
 * hold per partition only. Either breaks a promise silently; the caller chooses with partitionKey.
 */
function refuseSplitPromises(
  queue: string,
  concurrencyKey: string | undefined,
  idempotencyKey: string | undefined,
  dedupeKey: string | undefined,
): void {
  if (concurrencyKey === undefined) return;
  const [name, key] =
    idempotencyKey !== undefined ? ['idempotencyKey', idempotencyKey] : ['dedupe.key', dedupeKey];
  if (key === undefined || key === concurrencyKey) return;
  throw new ValidationError(
    `concurrencyKey '${concurrencyKey}' and ${name} '${key}' may route a job of partitioned queue '${queue}' ` +
      `to different partitions: the ${name} would dedupe only among jobs of that concurrency key, or the ` +
      `concurrency key's perKey limit hold per partition only. Give a partitionKey (the concurrency key ` +
      `keeps today's routing: its limit exact, the ${name} deduping among its jobs)`,
    { field: 'partitionKey', queue },
  );
}
