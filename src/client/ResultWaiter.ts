// Waits for jobs to finish without polling each one: one blocking reader per queue follows the
// queue's event stream and settles the waiters of the jobs it sees finish.
//
// No finish is missed: a waiter is registered before its job is read, and the reader's cursor
// was taken before that read, so a finish either shows in the read or comes later in the
// stream. A slow re-check covers entries trimmed from the capped stream.

import type { JobRecord, Store } from '../store/types.js';
import { FINISHED } from '../store/types.js';

interface Waiter {
  resolve: (job: JobRecord) => void;
  reject: (err: unknown) => void;
}

const BLOCK_MS = 1000;
const RECHECK_MS = 5000;

export class ResultWaiter {
  private readonly waiters = new Map<string, Set<Waiter>>();
  private loop: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly store: Store,
    private readonly queue: string,
  ) {}

  async wait(id: string, signal: AbortSignal): Promise<JobRecord> {
    let w!: Waiter;
    const settled = new Promise<JobRecord>((resolve, reject) => (w = { resolve, reject }));
    let set = this.waiters.get(id);
    if (!set) this.waiters.set(id, (set = new Set()));
    set.add(w);
    const onAbort = () => {
      set.delete(w);
      if (set.size === 0 && this.waiters.get(id) === set) this.waiters.delete(id);
      w.reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await this.ensureLoop();
      await this.check(id);
      return await settled;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  private async ensureLoop(): Promise<void> {
    if (this.loop) return;
    const cursor = await this.store.lastEventCursor(this.queue);
    this.loop ??= this.follow(cursor).finally(() => (this.loop = undefined));
  }

  private async check(id: string): Promise<void> {
    try {
      const job = await this.store.getJob(id, this.queue);
      if (job && FINISHED.has(job.status)) this.settle(id, job);
    } catch (err) {
      for (const w of this.waiters.get(id) ?? []) w.reject(err);
      this.waiters.delete(id);
    }
  }

  private settle(id: string, job: JobRecord): void {
    const set = this.waiters.get(id);
    if (!set) return;
    this.waiters.delete(id);
    for (const w of set) w.resolve(job);
  }

  private async follow(cursor: string): Promise<void> {
    let lastRecheck = Date.now();
    while (!this.closed && this.waiters.size > 0) {
      try {
        const events = await this.store.readEvents(this.queue, cursor, BLOCK_MS);
        for (const e of events) {
          cursor = e.cursor;
          if (this.waiters.has(e.jobId) && e.status && FINISHED.has(e.status)) await this.check(e.jobId);
        }
        if (Date.now() - lastRecheck > RECHECK_MS) {
          lastRecheck = Date.now();
          await Promise.all([...this.waiters.keys()].map((id) => this.check(id)));
        }
      } catch {
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  }

  close(): void {
    this.closed = true;
  }
}
