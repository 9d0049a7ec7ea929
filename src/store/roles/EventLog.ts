// ROLE EventLog (required): a queue's stream of job moves (enqueued, claimed, done, ...), each
// written in the same atomic step as the move. Cursors are "<ms>-<n>", as Redis stream ids:
// reading from a time yields what was written after it.
// Argument order, in every role: a call on a queue's work takes `queue` first; a call on one job
// takes the job's id first, then `queue`, the locator that finds it (types.ts lists the exceptions).

import type { QueueEvent } from '../queueEvent.js';

export interface EventLog {
  /** Reads queue events after `cursor` (exclusive), blocking up to `blockMs` for the first one. */
  readEvents(queue: string, cursor: string, blockMs: number, count?: number): Promise<QueueEvent[]>;
  /** The cursor of the newest event: reading from it yields only what comes after. */
  lastEventCursor(queue: string): Promise<string>;
}
