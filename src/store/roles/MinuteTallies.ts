// ROLE MinuteTallies (optional): per stored queue, a tally per minute of the jobs that ended in
// it and their wait and run times in fixed buckets (src/store/queueSeries.ts), written in the
// same atomic step as each ending. GET /queues/:queue/series and the dashboard's charts read it.
// An OPTIONAL role: a backend has it whole or not at all; callers ask with the guard below.

import type { MinuteTally } from '../queueSeries.js';

export interface MinuteTallies {
  /**
   * The tallies of `count` minutes of stored queue `queue` from minute `first` (ms / 60,000, the
   * store's clock), one per minute, oldest first; a minute with no ending (or expired) is `{}`.
   */
  minuteTallies(queue: string, first: number, count: number): Promise<MinuteTally[]>;
}

export function hasMinuteTallies<S extends object>(store: S): store is S & MinuteTallies {
  return typeof (store as Partial<MinuteTallies>).minuteTallies === 'function';
}
