// A job record as the API shows it: everything but the persisted snapshot, which is the
// runtime's storage form (XState's persisted shape); `state` and `context` carry what it says.

import type { JobRecord } from '../store/types.js';

export type JobView = Omit<JobRecord, 'snapshot'>;

export function jobView(job: JobRecord): JobView {
  const { snapshot: _snapshot, ...view } = job;
  return view;
}
