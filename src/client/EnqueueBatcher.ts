// Client.enqueue's batching: the calls made in one tick are sent together, one store call per
// queue (in chunks of ENQUEUE_CHUNK jobs) for all of them. Each job is still its own record, with
// its own idempotency key and events; a store error rejects every call of that batch.

import type { EnqueueResult, NewJob, Store } from '../store/types.js';

/** Most jobs one auto-batched enqueue call carries. */
const ENQUEUE_CHUNK = 1000;

interface Pending {
  queue: string;
  job: NewJob;
  resolve: (result: EnqueueResult) => void;
  reject: (e: unknown) => void;
}

export class EnqueueBatcher {
  private autoBatch: Pending[] | undefined;

  constructor(private readonly store: Store) {}

  /** Adds a built job to this tick's batch; resolves with the store's answer for it once stored. */
  add(queue: string, job: NewJob): Promise<EnqueueResult> {
    return new Promise<EnqueueResult>((resolve, reject) => {
      let b = this.autoBatch;
      if (!b) {
        b = this.autoBatch = [];
        // nextTick runs after the promise continuations already queued: concurrent callers join.
        process.nextTick(() => this.flushAutoBatch());
      }
      b.push({ queue, job, resolve, reject });
    });
  }

  private flushAutoBatch(): void {
    const all = this.autoBatch ?? [];
    this.autoBatch = undefined;
    const byQueue = new Map<string, typeof all>();
    for (const e of all) {
      const list = byQueue.get(e.queue);
      if (list) list.push(e);
      else byQueue.set(e.queue, [e]);
    }
    for (const [queue, list] of byQueue) {
      for (let start = 0; start < list.length; start += ENQUEUE_CHUNK) {
        const part = list.slice(start, start + ENQUEUE_CHUNK);
        this.store
          .enqueue(
            queue,
            part.map((e) => e.job),
          )
          .then(
            (res) => res.forEach((r, k) => part[k]!.resolve(r)),
            (err: unknown) => part.forEach((e) => e.reject(err)),
          );
      }
    }
  }
}
