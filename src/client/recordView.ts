// A job record as the API shows it: everything but the persisted snapshot, which is the
// runtime's storage form (XState's persisted shape); `state` and `context` carry what it says,
// `timers` the pipeline timers it holds (its `after` delays and delayed events).
//
// Error stacks name the server's files and code paths: shown only to a caller allowed to see
// them (`stacks`: a write token, or the server's exposeErrorStacks; errorStacks.ts), else the
// error keeps its name, message, code and causes without their stacks. Here, below src/http and
// src/dashboard, because both show a record this way.

import { storedTimersOf, type PendingTimerView } from '../pipeline/timers.js';
import { wireRecord } from '../store/valueCodec.js';
import { holdsLifecycleContext } from '../store/decodeJob.js';
import { FINISHED, type JobRecord } from '../store/types.js';
import type { StoredError } from '../errors.js';

export type JobView = Omit<JobRecord, 'snapshot'> & { timers: PendingTimerView[] };

/** The record as JSON readers get it: a Date (say) in the value codec's envelope (docs/http.md). */
export function jobView(job: JobRecord, stacks: boolean): JobView {
  const { snapshot, ...rest } = job;
  const view: JobView = { ...rest, timers: FINISHED.has(job.status) ? [] : storedTimersOf(snapshot) };
  if (!stacks) {
    view.error = withoutStack(view.error);
    // A simple job's context is the lifecycle's own, whose `error` is the last attempt's (a
    // pipeline's context is the user's, left as it is).
    const ctx = view.context as { error?: unknown } | null;
    if (holdsLifecycleContext(snapshot) && ctx !== null && typeof ctx === 'object' && 'error' in ctx)
      view.context = { ...ctx, error: withoutStack(ctx.error) };
  }
  return wireRecord(view);
}

/** The error (a StoredError, or null) without its stack and its causes' stacks. */
export function withoutStack<T extends StoredError | null | undefined>(error: T): T;
export function withoutStack(error: unknown): unknown;
export function withoutStack(error: unknown): unknown {
  if (error === null || typeof error !== 'object' || Array.isArray(error)) return error;
  const { stack: _stack, cause, ...rest } = error as StoredError;
  return cause === undefined ? rest : { ...rest, cause: withoutStack(cause) };
}
