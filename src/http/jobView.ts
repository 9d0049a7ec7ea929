// A job record as the API shows it: everything but the persisted snapshot, which is the
// runtime's storage form (XState's persisted shape); `state` and `context` carry what it says.

import type { JobRecord } from '../store/types.js';
import { wireRecord } from '../runtime/valueCodec.js';

export type JobView = Omit<JobRecord, 'snapshot'>;

/** The record as JSON readers get it: a Date (say) in the value codec's envelope (docs/http.md). */
export function jobView(job: JobRecord): JobView {
  const { snapshot: _snapshot, ...view } = job;
  return wireRecord(view);
}
