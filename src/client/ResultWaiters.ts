// A client's waits for job results (Client.waitForResult): one ResultWaiter per queue, shared by
// every wait on that queue, and each wait's bound (TimeoutError) and caller's abort signal.

import { JobNotFoundError, TimeoutError } from '../errors.js';
import { FINISHED, type JobRecord, type Store } from '../store/types.js';
import { ResultWaiter } from './ResultWaiter.js';

export class ResultWaiters {
  private readonly waiters = new Map<string, ResultWaiter>();

  constructor(
    private readonly store: Store,
    /** The stored queue of a job named with `queue` (a partition of a partitioned queue). */
    private readonly jobQueue: (id: string, queue: string | undefined) => Promise<string | undefined> = (
      _id,
      queue,
    ) => Promise.resolve(queue),
  ) {}

  /**
   * Resolves with the job's record once it has finished; rejects with a TimeoutError after
   * `timeoutMs` (default 30 s), JOB_NOT_FOUND for an unknown id, or `signal`'s reason.
   */
  async waitFor(
    id: string,
    options: { timeoutMs?: number; queue?: string; signal?: AbortSignal },
  ): Promise<JobRecord> {
    const timeoutMs = options.timeoutMs ?? 30_000;
    options.signal?.throwIfAborted();
    let queue = await this.jobQueue(id, options.queue);
    if (!queue) {
      // Which queue holds it. The waiter reads the record again after it has registered (see
      // ResultWaiter): with the queue given, that read is the only one before blocking.
      const job = await this.store.getJob(id);
      if (!job) throw new JobNotFoundError(id);
      if (FINISHED.has(job.status)) return job;
      queue = job.queue;
    }
    let waiter = this.waiters.get(queue);
    if (!waiter) this.waiters.set(queue, (waiter = new ResultWaiter(this.store, queue)));
    const ac = new AbortController();
    const timer = setTimeout(
      () =>
        ac.abort(
          new TimeoutError(`job ${id} did not finish within ${timeoutMs} ms`, {
            jobId: id,
            queue,
          }),
        ),
      timeoutMs,
    );
    const outer = options.signal;
    const onOuterAbort = () => ac.abort(outer!.reason);
    if (outer?.aborted) onOuterAbort();
    else outer?.addEventListener('abort', onOuterAbort, { once: true });
    try {
      return await waiter.wait(id, ac.signal, () => new JobNotFoundError(id, queue));
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuterAbort);
    }
  }

  close(): void {
    for (const w of this.waiters.values()) w.close();
    this.waiters.clear();
  }
}
