// Which ticks a pass of the schedule loop handles at `now`: the ones come due since the last
// pass, oldest first, inside the catch-up window; older ones are missed (skipped and logged).
// Pure, like scheduleTicks.ts.

import { nextTick } from './scheduleTicks.js';
import type { ScheduleRecord } from './scheduleRecord.js';

/** Most ticks one pass fires: a schedule far behind catches up over several passes, not in one long one. */
export const MAX_TICKS_PER_PASS = 100;
/** Most missed ticks counted one by one; past it the count says "at least". */
const MAX_COUNTED = 10_000;

export interface DueTicks {
  fresh: number[];
  /** Ticks older than the catch-up window: the first one and how many. */
  missed: { from: number; count: number; atLeast: boolean } | null;
  /** The schedule's next tick after these (ScheduleRecord.next). */
  next: number | null;
}

export function dueTicks(r: ScheduleRecord, now: number, max = MAX_TICKS_PER_PASS): DueTicks {
  const spec = r.spec;
  let t = r.next;
  let missed: DueTicks['missed'] = null;
  const oldest = now - spec.catchupWindowMs;
  if (t !== null && t < oldest) {
    let count = 0;
    let u: number | null = t;
    while (u !== null && u < oldest && count < MAX_COUNTED) {
      count++;
      u = nextTick(spec, u);
    }
    missed = { from: t, count, atLeast: u !== null && u < oldest };
    t = nextTick(spec, oldest - 1);
  }
  const fresh: number[] = [];
  while (t !== null && t <= now && fresh.length < max) {
    fresh.push(t);
    t = nextTick(spec, t);
  }
  return { fresh, missed, next: t };
}
