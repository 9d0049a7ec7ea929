// A job record as the API shows it: everything but the persisted snapshot, which is the
// runtime's storage form (XState's persisted shape); `state` and `context` carry what it says,
// `timers` the pipeline timers it holds (its `after` delays and delayed events).

import { storedTimersOf, type PendingTimerView } from '../pipeline/timers.js';
import { wireRecord } from '../runtime/valueCodec.js';
import { FINISHED, type JobRecord } from '../store/types.js';

export type JobView = Omit<JobRecord, 'snapshot'> & { timers: PendingTimerView[] };

/** The record as JSON readers get it: a Date (say) in the value codec's envelope (docs/http.md). */
export function jobView(job: JobRecord): JobView {
  const { snapshot, ...view } = job;
  return wireRecord({ ...view, timers: FINISHED.has(job.status) ? [] : storedTimersOf(snapshot) });
}
