// Waits for jobs to finish without polling each one: one blocking reader per queue follows the
// queue's event stream and settles the waiters of the jobs it sees finish.
//
// No finish is missed: a waiter is registered before its job is read, and the reader's cursor
// was taken before that read, so a finish either shows in the read or comes later in the
// stream. A slow re-check covers entries trimmed from the capped stream.
//
// Round trips: a wait reads the job's record once before it blocks (that read also finds a job
// that has finished already, or does not exist) and once when its finish shows in the stream.
// The reader lingers LINGER_MS after its last waiter has gone, so back-to-back waits (enqueue,
// wait, enqueue, wait, ...) keep its cursor instead of asking Redis for a new one each time.

import type { JobRecord, Store } from '../store/types.js';
import { FINISHED } from '../store/types.js';

interface Waiter {
  resolve: (job: JobRecord) => void;
  reject: (err: unknown) => void;
}

const BLOCK_MS = 1000;
const RECHECK_MS = 5000;
const LINGER_MS = 2000;

export class ResultWaiter {
  private readonly waiters = new Map<string, Set<Waiter>>();
  private loop: Promise<void> | undefined;
  /** Which reader is current: a reader that stops clears `loop` only if it is still its own. */
  private generation = 0;
  private closed = false;

  constructor(
    private readonly store: Store,
    private readonly queue: string,
  ) {}

  /**
   * Resolves with the job's record once it has finished. `notFound` makes a job that has no
   * record reject with that error (else the wait goes on: the caller read the record already).
   */
  async wait(id: string, signal: AbortSignal, notFound?: () => Error): Promise<JobRecord> {
    let w!: Waiter;
    const settled = new Promise<JobRecord>((resolve, reject) => (w = { resolve, reject }));
    let set = this.waiters.get(id);
    if (!set) this.waiters.set(id, (set = new Set()));
    set.add(w);
    const leave = () => {
      set.delete(w);
      if (set.size === 0 && this.waiters.get(id) === set) this.waiters.delete(id);
    };
    const onAbort = () => {
      leave();
      w.reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await this.ensureLoop();
      const job = await this.check(id);
      if (job === null && notFound) {
        leave();
        w.reject(notFound());
      }
      return await settled;
    } catch (err) {
      leave(); // no reader (Redis unreachable): this waiter must not stay registered
      throw err;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  private async ensureLoop(): Promise<void> {
    if (this.loop) return;
    const cursor = await this.store.lastEventCursor(this.queue);
    if (this.loop) return;
    this.loop = this.follow(cursor, ++this.generation);
  }

  /** Reads the job; settles its waiters when it has finished. Null: no such job. */
  private async check(id: string): Promise<JobRecord | null | undefined> {
    try {
      const job = await this.store.getJob(id, this.queue);
      if (job && FINISHED.has(job.status)) this.settle(id, job);
      return job;
    } catch (err) {
      for (const w of this.waiters.get(id) ?? []) w.reject(err);
      this.waiters.delete(id);
      return undefined;
    }
  }

  private settle(id: string, job: JobRecord): void {
    const set = this.waiters.get(id);
    if (!set) return;
    this.waiters.delete(id);
    for (const w of set) w.resolve(job);
  }

  private async follow(cursor: string, generation: number): Promise<void> {
    let lastRecheck = Date.now();
    let idleSince = Date.now();
    // Stopping and clearing `loop` happen in one synchronous step (this `finally`, not a
    // `.finally` a microtask later), so a wait that comes after it starts a new reader, and one
    // that came before it kept this one going.
    try {
      while (!this.closed) {
        if (this.waiters.size > 0) idleSince = Date.now();
        else if (Date.now() - idleSince >= LINGER_MS) break;
        try {
          const events = await this.store.readEvents(this.queue, cursor, BLOCK_MS);
          // One combined entry may finish many awaited jobs: their reads go out together.
          const finished = new Set<string>();
          for (const e of events) {
            cursor = e.cursor;
            if (this.waiters.has(e.jobId) && e.status && FINISHED.has(e.status)) finished.add(e.jobId);
          }
          await Promise.all([...finished].map((id) => this.check(id)));
          if (Date.now() - lastRecheck > RECHECK_MS) {
            lastRecheck = Date.now();
            await Promise.all([...this.waiters.keys()].map((id) => this.check(id)));
          }
        } catch {
          await new Promise((r) => setTimeout(r, 250));
        }
      }
    } finally {
      if (this.generation === generation) this.loop = undefined;
    }
  }

  close(): void {
    this.closed = true;
  }
}
