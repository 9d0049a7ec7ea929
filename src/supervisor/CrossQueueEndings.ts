// The running jobs of one queue whose parent lives on another queue (another hash slot): their
// endings reach the parent through this queue's outbox (the edges' relay, OutboxRelay.ts), so
// once such a job's ending write has landed the relay is asked to run at once rather than at
// the reaper's next pass. Split out of CommitPump.ts, which tells it what each commit wrote.
//
// Kept small on purpose: an id leaves the set when its ending write has been answered, or when
// its run leaves the running set without one (a run that lost its lease writes no ending and
// would otherwise stay here for good).

import type { Logger } from 'pino';
import type { OutboxRelay } from './OutboxRelay.js';
import type { PendingWrite } from './pendingWrites.js';

export class CrossQueueEndings {
  private readonly ids = new Set<string>();

  constructor(
    private readonly outbox: OutboxRelay,
    private readonly log: Logger,
  ) {}

  /** How many running jobs are followed (tests: it must not grow with jobs run). */
  get size(): number {
    return this.ids.size;
  }

  /** A running child whose parent is on another queue. */
  note(id: string): void {
    this.ids.add(id);
  }

  /** Its run left the running set. */
  forget(id: string): void {
    this.ids.delete(id);
  }

  /** A commit's writes were answered: relay now when one of them ended a followed job's run. */
  written(batch: readonly PendingWrite[]): void {
    if (this.ids.size === 0 || !batch.some((p) => this.ids.has(p.op.id) && p.op.kind !== 'checkpoint'))
      return;
    for (const p of batch) this.ids.delete(p.op.id);
    void this.outbox
      .relay()
      .catch((err) => this.log.warn({ err }, 'outbox relay failed; the reaper retries'));
  }
}
