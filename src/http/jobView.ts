// A job record as the API shows it: everything but the persisted snapshot, which is the
// runtime's storage form (XState's persisted shape); `state` and `context` carry what it says.
//
// Error stacks name the server's files and code paths: shown only to a caller allowed to see
// them (`stacks`: a write token, or the server's exposeErrorStacks; errorStacks.ts), else the
// error keeps its name, message, code and causes without their stacks.

import { holdsLifecycleContext } from '../store/redis/decodeJob.js';
import type { JobRecord } from '../store/types.js';
import { withoutStack } from './errorStacks.js';

export type JobView = Omit<JobRecord, 'snapshot'>;

export function jobView(job: JobRecord, stacks: boolean): JobView {
  const { snapshot, ...view } = job;
  if (stacks) return view;
  const out: JobView = { ...view, error: withoutStack(view.error) };
  // A simple job's context is the lifecycle's own, whose `error` is the last attempt's (a
  // pipeline's context is the user's, left as it is).
  const ctx = view.context as { error?: unknown } | null;
  if (holdsLifecycleContext(snapshot) && ctx !== null && typeof ctx === 'object' && 'error' in ctx)
    out.context = { ...ctx, error: withoutStack(ctx.error) };
  return out;
}
