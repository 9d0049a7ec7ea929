// A client's waits for job results (Client.waitForResult, Client.enqueueAndWait and its batch form
// enqueueManyAndWait): one ResultWaiter per queue, shared by every wait on that queue, and each
// wait's bound (TimeoutError) and caller's abort signal.

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

/** A stored batch's waits (ResultWaiters.enqueueManyAndWait), in the batch's order. */
export interface WatchedBatch {
  /** The store's answer for each job. */
  stored: EnqueueResult[];
  /** Each job's end, settled as enqueueAndWait's would (its own TimeoutError at the bound). */
  results: Promise<JobRecord>[];
  /**
   * Every job's final record; rejects with the first error, a timeout as one TimeoutError naming
   * every job not finished (`jobIds`), and then ends the waits still open.
   */
  all(): Promise<JobRecord[]>;
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

  /**
   * enqueueAndWait for a batch (Client.enqueueManyAndWait): the jobs (each with its stored queue,
   * in the batch's order) are written through `write`, one call per queue, each job with its
   * queue's watcher on it, and every wait is registered before any hold ends. Resolves once every
   * write has answered; rejects with the first write's error (the jobs of the other queues may be
   * stored: nobody waits for them). One bound for the batch, started once all of it is stored.
   */
  async enqueueManyAndWait(
    jobs: readonly { queue: string; job: NewJob }[],
    write: (queue: string, jobs: NewJob[]) => Promise<EnqueueResult[]>,
    options: WaitOptions,
  ): Promise<WatchedBatch> {
    const byQueue = new Map<string, number[]>();
    jobs.forEach(({ queue }, i) => {
      const list = byQueue.get(queue);
      if (list) list.push(i);
      else byQueue.set(queue, [i]);
    });
    const groups = [...byQueue].map(([queue, items]) => ({ queue, items, waiter: this.waiterFor(queue) }));
    // Held from before the writes until every wait is registered: a job's end may be read first.
    const releases = groups.map((g) => g.waiter.hold());
    try {
      // Every write answered before any wait: a failed one rejects the call, the others' jobs
      // are stored all the same, and no hold may end while one of them is still under way.
      const written = await Promise.allSettled(
        groups.map((g) =>
          write(
            g.queue,
            g.items.map((i) => ({ ...jobs[i]!.job, watcher: g.waiter.watcherId })),
          ),
        ),
      );
      const stored: EnqueueResult[] = new Array(jobs.length);
      written.forEach((w, k) => {
        if (w.status === 'rejected') throw w.reason;
        w.value.forEach((r, n) => (stored[groups[k]!.items[n]!] = r));
      });
      return this.waitBatch(jobs, stored, options);
    } finally {
      for (const release of releases) release();
    }
  }

  /**
   * The waits of a stored batch, all registered before this returns (no await: the holds end
   * right after). Each job has a signal of its own, aborted by the batch's bound (a TimeoutError
   * naming it), by the caller's `signal`, or by `all()` giving up.
   */
  private waitBatch(
    jobs: readonly { queue: string }[],
    stored: EnqueueResult[],
    options: WaitOptions,
  ): WatchedBatch {
    const timeoutMs = options.timeoutMs ?? 30_000;
    const acs = stored.map(() => new AbortController());
    /** The jobs not ended yet, in the batch's order (a Set keeps its insertion order). */
    const open = new Set(stored.keys());
    let rejectAll: ((err: unknown) => void) | undefined;
    // Before the waits: a signal aborted already (while the writes were under way) makes no watch.
    const outer = options.signal;
    const onOuterAbort = () => {
      for (const i of open) acs[i]!.abort(outer!.reason);
    };
    if (outer?.aborted) onOuterAbort();
    else outer?.addEventListener('abort', onOuterAbort, { once: true });
    const results = stored.map((s, i) => {
      const queue = jobs[i]!.queue;
      const result = this.waiterFor(queue).wait(
        s.id,
        acs[i]!.signal,
        s.watched ? { watched: true } : { notFound: () => new JobNotFoundError(s.id, queue) },
      );
      // Handled here too: the caller may hold the results without awaiting them all.
      void result.then(
        () => open.delete(i),
        () => open.delete(i),
      );
      return result;
    });
    const timer =
      stored.length === 0
        ? undefined
        : setTimeout(() => {
            const late = [...open];
            const ids = late.map((i) => stored[i]!.id);
            const queues = new Set(late.map((i) => jobs[i]!.queue));
            const shown = ids.length > 5 ? `${ids.slice(0, 5).join(', ')}, ...` : ids.join(', ');
            // First, before any job's own error: all() rejects with this one, naming them all.
            rejectAll?.(
              new TimeoutError(
                `${ids.length} of ${stored.length} jobs did not finish within ${timeoutMs} ms (${shown})`,
                { jobId: ids[0], queue: queues.size === 1 ? [...queues][0] : undefined },
                ids,
              ),
            );
            for (const i of late)
              acs[i]!.abort(TimeoutError.forJob(stored[i]!.id, jobs[i]!.queue, timeoutMs));
          }, timeoutMs);
    void Promise.allSettled(results).then(() => {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuterAbort);
    });
    return {
      stored,
      results,
      all: () =>
        new Promise<JobRecord[]>((resolve, reject) => {
          rejectAll = reject;
          Promise.all(results).then(resolve, reject);
        }).catch((err: unknown) => {
          // Nobody waits for the rest any more: their watches end now, not at the bound.
          for (const i of open) acs[i]!.abort(err);
          throw err;
        }),
    };
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
    const timer = setTimeout(() => ac.abort(TimeoutError.forJob(id, queue, timeoutMs)), timeoutMs);
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
