// A claimed job run on a bare ActiveJob: no store, its writes collected in order. For tests of
// what a runtime writes (test/pipeline/runtimeCore.test.ts, logOnlyCheckpoint.test.ts,
// storedForm.test.ts; test/runtime/workArgs.test.ts), where a store would only stand between the
// run and its ops.

import pino from 'pino';
import { ActiveJob, type JobHost } from '../../src/runtime/ActiveJob.js';
import type { AttemptHost } from '../../src/runtime/AttemptHost.js';
import type { ClaimedJob, CommitOp } from '../../src/store/types.js';

/** A job as a claim hands it out: loading on its first claim, working once it has a snapshot. */
export function claimedJob(over: Partial<ClaimedJob> = {}): ClaimedJob {
  return {
    id: 'job-1',
    token: 'tk-1',
    machine: 'm',
    version: 1,
    input: undefined,
    snapshot: undefined,
    attempt: 1,
    maxAttempts: 3,
    status: over.snapshot ? 'working' : 'loading',
    leaseRequeues: 0,
    retryLaters: 0,
    parentId: undefined,
    parentQueue: undefined,
    options: undefined,
    inbox: 0,
    hasInbox: false,
    ...over,
  };
}

/** `claimed` as an ActiveJob whose every write is taken (true) and kept in `writes`. */
export function runOn(claimed: ClaimedJob, writes: CommitOp[] = []): { job: ActiveJob; writes: CommitOp[] } {
  const host: JobHost = {
    queue: 'q',
    write: (op) => {
      writes.push(op);
      return Promise.resolve(true);
    },
  };
  return { job: new ActiveJob(claimed, host), writes };
}

/** The attempt's host; `aheadMs`: how far the store's clock is ahead (a timer due at a claim). */
export const hostAt = (aheadMs = 0) =>
  ({
    queue: 'q',
    log: pino({ level: 'silent' }),
    now: () => Date.now() + aheadMs,
    latest: () => Date.now() + aheadMs,
    readInbox: async () => [],
  }) as unknown as AttemptHost;
