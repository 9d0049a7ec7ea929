// A client's waits for job results (Client.waitForResult, Client.enqueueAndWait): one ResultWaiter
// per queue, shared by every wait on that queue, and each wait's bound (TimeoutError) and caller's
// abort signal.

import { JobNotFoundError, TimeoutError } from '../errors.js';
import { FINISHED, type EnqueueResult, type JobRecord, type NewJob, type Store } from '../store/types.js';
import { ResultWaiter } from './ResultWaiter.js';

/** How long a wait may last, and the caller's signal that ends it early. */
export interface WaitOptions {
  /** Default 30 s; then the wait rejects with a TimeoutError naming the job. */
  timeoutMs?: number;
  /** Ends the wait (not the job) early, rejecting with its reason. */
  signal?: AbortSignal;
}

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
  async waitFor(id: string, options: WaitOptions & { queue?: string }): Promise<JobRecord> {
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
    const q = queue;
    return this.bounded(id, q, options, (waiter, signal) =>
      waiter.wait(id, signal, { notFound: () => new JobNotFoundError(id, q) }),
    );
  }

  /**
   * Writes `job` to `queue` through `write` (the client's enqueue) with this queue's watcher on it
   * (NewJob.watcher: registered in the step that makes it), and waits for its end as waitFor
   * does. The wait's bound starts once the job is stored; `result` settles as waitFor's would.
   * A job a key kept instead is waited for too: through the enqueue's mark when it was
   * unfinished, else by reading it (finished: its record; gone: JOB_NOT_FOUND).
   */
  async enqueueAndWait(
    queue: string,
    job: NewJob,
    write: (job: NewJob) => Promise<EnqueueResult>,
    options: WaitOptions,
  ): Promise<{ stored: EnqueueResult; result: Promise<JobRecord> }> {
    const waiter = this.waiterFor(queue);
    // Held from before the write until the wait is registered: the job's end may be read first.
    const release = waiter.hold();
    try {
      const stored = await write({ ...job, watcher: waiter.watcherId });
      const result = this.bounded(stored.id, queue, options, (w, signal) =>
        w.wait(
          stored.id,
          signal,
          stored.watched ? { watched: true } : { notFound: () => new JobNotFoundError(stored.id, queue) },
        ),
      );
      // Handled here too: the caller may look at `stored` before it awaits `result`.
      result.catch(() => undefined);
      return { stored, result };
    } finally {
      release();
    }
  }

  /** The queue's waiter, made on first use. */
  private waiterFor(queue: string): ResultWaiter {
    let waiter = this.waiters.get(queue);
    if (!waiter) this.waiters.set(queue, (waiter = new ResultWaiter(this.store, queue)));
    return waiter;
  }

  /**
   * `wait` on the queue's waiter, bounded by `timeoutMs` and `signal`. Registers the wait before
   * it returns (no await comes first): an enqueue's hold may end right after.
   */
  private async bounded(
    id: string,
    queue: string,
    options: WaitOptions,
    wait: (waiter: ResultWaiter, signal: AbortSignal) => Promise<JobRecord>,
  ): Promise<JobRecord> {
    const timeoutMs = options.timeoutMs ?? 30_000;
    const waiter = this.waiterFor(queue);
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
      return await wait(waiter, ac.signal);
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
