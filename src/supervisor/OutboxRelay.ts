// The relay of one queue's outbox for a supervisor: finished children whose parent lives on
// another queue, delivered to that parent (Store.relayOutbox). Asked for after a commit that
// ended such a child and at every reap.
//
// SINGLE FLIGHT: one relay of the queue at a time. A request while one runs is not a second
// relay over the same entries (each ending child used to start its own: 2,310 of 3,510
// deliveries were repeats); it makes the running one go round once more when it ends, so an
// entry added meanwhile is still relayed. A full batch goes round again too.
//
// NOTHING DROPPED SILENTLY: an entry the store could not deliver (a parent queue name that
// cannot be a queue, an older version's entry whose child record is gone) is logged.

import type { Logger } from 'pino';
import type { FanOut } from '../store/types.js';

export class OutboxRelay {
  private inFlight: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly store: FanOut,
    private readonly queue: string,
    private readonly log: Logger,
  ) {}

  /** Relays now, or once more after the relay in flight; resolves when the outbox was gone through. */
  relay(): Promise<void> {
    if (this.inFlight) {
      this.again = true;
      return this.inFlight;
    }
    this.inFlight = this.run().finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  private async run(): Promise<void> {
    do {
      this.again = false;
      const r = await this.store.relayOutbox(this.queue);
      for (const d of r.dropped)
        this.log.error(
          { queue: this.queue, entry: d.entry, why: d.why },
          'outbox entry dropped: its parent is not told',
        );
      if (r.more) this.again = true;
    } while (this.again);
  }
}
