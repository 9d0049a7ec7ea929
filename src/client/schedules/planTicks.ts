// The overlap policies (Temporal's), as one pure function: given the ticks to handle now
// (held ones first, oldest first) and whether the previous tick's job is unfinished, which
// start, which are skipped, which are held, and whether the running job is cancelled first.

import type { HeldTick } from './scheduleRecord.js';
import type { OverlapPolicy } from './scheduleSpec.js';

export interface TickPlan {
  start: HeldTick[];
  skip: HeldTick[];
  hold: HeldTick[];
  /** cancelOther with the previous tick's job unfinished: cancel it before starting. */
  cancelPrevious: boolean;
}

/**
 * `held`: ticks buffered earlier; `fresh`: ticks come due now; `busy`: the previous tick's job is
 * unfinished. Under skip, bufferOne and bufferAll at most one job runs at a time: the first tick
 * handled while nothing runs starts, and the others wait or are skipped by the policy. Under
 * cancelOther the newest tick wins: the running job is cancelled and earlier ticks of this same
 * pass are skipped (a job started and cancelled at once would help nobody).
 */
export function planTicks(
  policy: OverlapPolicy,
  held: HeldTick[],
  fresh: HeldTick[],
  busy: boolean,
): TickPlan {
  const plan: TickPlan = { start: [], skip: [], hold: [], cancelPrevious: false };
  const all = [...held, ...fresh];
  if (policy === 'allowAll') return { ...plan, start: all };
  if (policy === 'cancelOther') {
    if (all.length === 0) return plan;
    return { ...plan, start: [all.at(-1)!], skip: all.slice(0, -1), cancelPrevious: busy };
  }
  for (const t of all) {
    if (!busy) {
      plan.start.push(t);
      busy = true;
    } else if (policy === 'bufferAll' || (policy === 'bufferOne' && plan.hold.length === 0)) {
      plan.hold.push(t);
    } else {
      plan.skip.push(t);
    }
  }
  return plan;
}
