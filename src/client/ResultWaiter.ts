// Waits for jobs of one queue to finish without polling them: the waiter is a watcher (an id of
// its own), each wait marks its job as watched, and the job's final record is pushed to the
// watcher when the job ends, where one blocking reader takes it (Store.watchJob, readResults).
//
// No finish is missed: the mark and the read that saw the job unfinished are one atomic step
// (lua/watch-1.lua), so a finish either shows in that read or comes after the mark and is
// pushed. Pushed records wait in Redis until the reader takes them, so a reader that starts
// late loses nothing. A slow re-check of every waited job is the net under all of it (a record
// that outwaited its minute in Redis, a finish by a script that pushes nothing).
//
// Round trips: one per wait (the watch) and none at the finish: the reader's wake-up carries
// the record, and it wakes for the jobs it waits for only, not for every event of the queue.
// The reader lingers LINGER_MS after its last waiter has gone, so back-to-back waits (enqueue,
// wait, enqueue, wait, ...) find it blocked already.
//
// An enqueue whose caller will wait (Client.enqueueAndWait) marks its job in the step that makes
// it (NewJob.watcher): no watch call, and no moment in which a fast job can end unseen (a minimal
// record is deleted as it ends done). Its end may be read before the enqueue's reply names the
// job, so while such an enqueue is under way (hold) a record no wait asked for yet is kept for it.

import { ulidFactory } from '../runtime/ulids.js';
import type { JobRecord, ResultWatch } from '../store/types.js';
import { FINISHED } from '../store/types.js';
import { CODE } from '../errorCodes.js';

const ulid = ulidFactory();

interface Waiter {
  resolve: (job: JobRecord) => void;
  reject: (err: unknown) => void;
}

const BLOCK_MS = 1000;
const RECHECK_MS = 5000;
const LINGER_MS = 2000;

export class ResultWaiter {
  /** This waiter's name in the records it watches and in its result list's key. */
  readonly watcherId = ulid();
  private readonly waiters = new Map<string, Set<Waiter>>();
  private loop: Promise<void> | undefined;
  private closed = false;
  /**
   * Enqueues under way with this watcher (hold), by number, oldest first; and the records read
   * meanwhile for no wait, each with the newest hold open when it came: kept until every hold
   * open then has ended (an enqueue with durability 'replicated' may answer long after its job
   * ended), not longer, however busy the client.
   */
  private holdSeq = 0;
  private readonly holds = new Set<number>();
  private readonly early = new Map<string, { job: JobRecord; hold: number }>();

  constructor(
    private readonly store: ResultWatch,
    private readonly queue: string,
  ) {}

  /**
   * Keeps the records read for jobs no wait has asked for yet, until the returned release is
   * called: an enqueue with this watcher (NewJob.watcher) holds from before it is sent until its
   * wait is registered, as its job may end, and its record be read, before the reply names it.
   */
  hold(): () => void {
    const n = ++this.holdSeq;
    this.holds.add(n);
    this.loop ??= this.follow();
    return () => {
      if (!this.holds.delete(n)) return;
      // The oldest hold still open (a Set iterates in insertion order); none: all go.
      const oldest = this.holds.values().next().value ?? Infinity;
      for (const [id, e] of this.early) if (e.hold < oldest) this.early.delete(id);
    };
  }

  /**
   * Resolves with the job's record once it has finished. `notFound` makes a job that has no
   * record reject with that error (else the wait goes on: the caller read the record already).
   * `watched`: the enqueue marked the job already (EnqueueResult.watched), so no watch call is
   * made (a minimal record may be gone by now, its end read or on its way to this reader).
   */
  async wait(
    id: string,
    signal: AbortSignal,
    options: { notFound?: () => Error; watched?: boolean } = {},
  ): Promise<JobRecord> {
    let w!: Waiter;
    const settled = new Promise<JobRecord>((resolve, reject) => (w = { resolve, reject }));
    // It may be rejected (Redis unavailable) before it is awaited below.
    settled.catch(() => undefined);
    let set = this.waiters.get(id);
    if (!set) this.waiters.set(id, (set = new Set()));
    set.add(w);
    const leave = () => {
      set.delete(w);
      if (set.size === 0 && this.waiters.get(id) === set) {
        this.waiters.delete(id);
        // Nobody here waits for it any more: off the job's watcher list (best effort; the job's
        // end clears the list anyway).
        this.store.unwatchJob(id, this.queue, this.watcherId).catch(() => undefined);
      }
    };
    const onAbort = () => {
      leave();
      w.reject(signal.reason);
    };
    // Aborted already (the caller's signal, while its enqueue was under way): no watch at all.
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    try {
      this.loop ??= this.follow();
      const read = this.early.get(id)?.job;
      // Left in `early` (until the holds open when it came have ended): another enqueue of this
      // client may have kept the same job (a key) and register for it next.
      if (read && !signal.aborted) this.settle(read);
      else if (!options.watched && !signal.aborted) {
        const job = await this.check(id);
        if (job === null && options.notFound) {
          leave();
          w.reject(options.notFound());
        }
      }
      return await settled;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** Watches the job (marks it, reads it); settles its waiters when it has finished. Null: no such job. */
  private async check(id: string): Promise<JobRecord | null | undefined> {
    try {
      const job = await this.store.watchJob(id, this.queue, this.watcherId);
      if (job && FINISHED.has(job.status)) this.settle(job);
      return job;
    } catch (err) {
      for (const w of this.waiters.get(id) ?? []) w.reject(err);
      this.waiters.delete(id);
      return undefined;
    }
  }

  private rejectAll(err: unknown): void {
    const all = [...this.waiters.values()];
    this.waiters.clear();
    for (const set of all) for (const w of set) w.reject(err);
  }

  private settle(job: JobRecord): void {
    const set = this.waiters.get(job.id);
    if (!set) {
      // An enqueue under way may wait for it (hold); else a wait that gave up (its mark stays
      // until the job ends): nothing to do.
      if (this.holds.size > 0) this.early.set(job.id, { job, hold: this.holdSeq });
      return;
    }
    this.waiters.delete(job.id);
    for (const w of set) w.resolve(job);
  }

  private async follow(): Promise<void> {
    let lastRecheck = Date.now();
    let idleSince = Date.now();
    try {
      while (!this.closed) {
        if (this.waiters.size > 0 || this.holds.size > 0) idleSince = Date.now();
        else if (Date.now() - idleSince >= LINGER_MS) break;
        try {
          for (const job of await this.store.readResults(this.queue, this.watcherId, BLOCK_MS))
            this.settle(job);
          if (Date.now() - lastRecheck > RECHECK_MS) {
            lastRecheck = Date.now();
            await Promise.all([...this.waiters.keys()].map((id) => this.check(id)));
          }
        } catch (err) {
          // Redis has not answered for the store's bound (REDIS_UNAVAILABLE): every wait learns
          // of it now rather than at its own timeout. Anything else: look again shortly.
          if ((err as { code?: unknown }).code === CODE.REDIS_UNAVAILABLE) this.rejectAll(err);
          else await new Promise((r) => setTimeout(r, 250));
        }
      }
    } finally {
      // Stopping and clearing `loop` happen in one synchronous step, so a wait that comes after
      // it starts a new reader, and one that came before it kept this one going.
      this.loop = undefined;
      this.store.endResults(this.queue, this.watcherId);
    }
  }

  close(): void {
    this.closed = true;
  }
}
