// A stored queue's minute tallies in memory (src/store/queueSeries.ts; lcTally.lua's twin): one
// tally per minute, dropped SERIES_KEEP_MS after its minute as a new minute opens. In memory
// only, like the event stream: a MemoryStore's data file does not keep them.

import { SERIES_KEEP_MS, SERIES_MINUTE_MS, tallyFields, type MinuteTally } from '../queueSeries.js';

export class MinuteTallyState {
  private readonly minutes = new Map<number, MinuteTally>();

  /** A job's ending at `now` (store time): its status's count and its wait and run buckets. */
  add(now: number, status: string, createdAt: number, claimedAt: number | undefined): void {
    const fields = tallyFields(status, createdAt, claimedAt, now);
    if (fields.length === 0) return;
    const minute = Math.floor(now / SERIES_MINUTE_MS);
    let t = this.minutes.get(minute);
    if (!t) {
      this.minutes.set(minute, (t = {}));
      const oldest = minute - SERIES_KEEP_MS / SERIES_MINUTE_MS;
      for (const m of this.minutes.keys()) if (m < oldest) this.minutes.delete(m);
    }
    for (const f of fields) t[f] = (t[f] ?? 0) + 1;
  }

  /** `count` minutes from `first`, each a copy (`{}` when none ended in it). */
  read(first: number, count: number): MinuteTally[] {
    return Array.from({ length: count }, (_, i) => ({ ...this.minutes.get(first + i) }));
  }
}
