// `fanOut`: actor logic for a pipeline state that starts child jobs and waits for them.
// Register it in setup({ actors: { fanOut } }) and invoke it with
//   input: { jobs: [{ machine, input, queue?, priority? }], policy?: 'failFast' | 'collect', key? }
// With failFast (the default) its output is the children's outputs in input order, and the
// first failed (or cancelled) child fails the step and cancels its unfinished siblings; with
// collect, it is every child's { id, status, output?, error? } in input order.
//
// While it waits the parent holds no worker slot: the store counts finished children (one
// script call per child) and wakes the parent when the set is complete. Child ids are
// `<parentId>.<invoke path>[~key].<index>`: a parent that re-runs the step after a crash
// finds its children already there and does not fan out twice. A state entered more than once
// (a loop) must pass a distinct `key` each time.

import { fromPromise } from 'xstate';
import { MachinistError, type StoredError } from '../errors.js';
import type { ChildJob } from '../runtime/AttemptHost.js';
import { actorPath, jobScopeOf } from './jobScope.js';
import { storeCompletedLogic } from './parkable.js';
import { CODE } from '../errorCodes.js';

/** One child of a fan-out: `{ machine, input?, queue?, priority?, concurrencyKey? }`. */
export type FanOutJob = ChildJob;

export interface FanOutInput {
  jobs: FanOutJob[];
  policy?: 'failFast' | 'collect';
  /** Distinguishes rounds of a fan-out from a state that is entered more than once. */
  key?: string;
}

export interface ChildOutcome {
  id: string;
  status: 'done' | 'failed' | 'cancelled';
  output?: unknown;
  error?: StoredError | null;
}

/** A child failed (or was cancelled) under the failFast policy. */
export class ChildJobFailedError extends MachinistError {
  /** The child had its own retries; retrying the parent would only read the same failure. */
  override readonly nonRetryable = true;
  constructor(
    childId: string,
    readonly childStatus: string,
    readonly childError: StoredError | null,
  ) {
    super(
      'CHILD_FAILED',
      `child job ${childId} ${childStatus}${childError ? `: ${childError.message}` : ''}`,
      { jobId: childId },
    );
  }
}

export const fanOut = fromPromise<unknown[], FanOutInput>(async ({ input, self, system, signal }) => {
  const scope = jobScopeOf(system as object);
  if (!scope?.fanOut)
    throw new MachinistError(CODE.NOT_IN_PIPELINE, 'fanOut runs only inside a Machinist pipeline job');
  return scope.fanOut(actorPath(self), input, signal);
});
storeCompletedLogic.add(fanOut);
