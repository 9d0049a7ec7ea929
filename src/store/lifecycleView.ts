// The lifecycle a record shows (`snapshot.l`: machines/job.ts's state and context, as a
// worker's lifecycle snapshot reads), derived from the record's own fields, by every reader of
// both stores (decodeJob.ts). The record is the one source of truth for a job's status: no
// worker writes its lifecycle into the stored snapshot (a record stored before that carries an
// `l`, which decodeJob ignores), so a move no worker makes (a cancel, the reaper, a redrive)
// cannot leave a lifecycle behind that says otherwise.

import type { StoredError } from '../errors.js';
import type { JobStatus } from './types.js';

export interface LifecycleView {
  value: JobStatus;
  /** The lifecycle machine's context (LifecycleContext) without its null fields, and without
   * `runAt`: the record's own `runAt` says when a waiting job runs. */
  context: { attempt: number; maxAttempts: number; error?: StoredError };
}

/**
 * The lifecycle of a record with these fields. `attempt` is the one in progress or next (1
 * before the first claim, as the machine starts); `error` the last attempt's, which the machine
 * keeps after a retry and the record clears at done.
 */
export function lifecycleView(
  status: JobStatus,
  attempt: number,
  maxAttempts: number,
  error: StoredError | null,
): LifecycleView {
  const context: LifecycleView['context'] = { attempt, maxAttempts };
  if (error !== null) context.error = error;
  return { value: status, context };
}
