// Runs one attempt of a `defineJob` job: load (optional), then work, inside the lifecycle.
// Each settled lifecycle state is written through the job's fenced writes.
//
// Hot path (a no-op job costs a few microseconds here): the success path's lifecycle snapshots
// come from a per-(attempt, maxAttempts, hasLoad) cache the machine
// fills (lifecycle.ts successPath); the timeout is a deadline the supervisor's sweep checks (no
// timer per job); the AbortSignal is created only when the job's code reads it.

import type { RetryPolicy } from './backoff.js';
import { successPath } from './lifecycle.js';
import type { ActiveJob } from './ActiveJob.js';
import { settleFailure } from './settle.js';
import { toStoredJson } from './storedJson.js';
import { workArgs } from './workArgs.js';

/** What runSimpleJob needs of a `defineJob` definition (defineJob.ts types the arguments). */
export interface SimpleJobLogic {
  readonly load?: (args: any) => unknown;
  readonly work: (args: any) => unknown;
  readonly retry?: RetryPolicy;
}

const WORKING_LOG = ['{"type":"state","state":"working"}'];
const DONE_LOG = ['{"type":"done"}'];

export async function runSimpleJob(
  job: ActiveJob,
  def: SimpleJobLogic,
  input: unknown,
  timeoutMs: number,
  queue: string,
): Promise<void> {
  const c = job.claimed;
  const path = successPath(c.attempt, c.maxAttempts, Boolean(def.load));
  let life = path.claimed;
  job.timeoutMs = timeoutMs;
  job.setDeadline(performance.now() + timeoutMs);
  try {
    let loaded: unknown;
    if (def.load) {
      const args = workArgs(job, input, queue, 'loading');
      // SURE LEASE (ActiveJob.leaseReady): at once while the lease is sure, else once it is again.
      const ready = job.leaseReady();
      loaded = await job.race(ready === undefined ? def.load(args) : ready.then(() => def.load!(args)));
      life = path.working;
      job.status = 'working';
      job.observeState('"working"');
      // Not awaited: if the worker dies now, the job re-runs from `loading` anyway.
      void job.write({
        kind: 'checkpoint',
        id: c.id,
        token: c.token,
        status: 'working',
        state: '"working"',
        log: WORKING_LOG,
      });
    }
    const args = workArgs(job, input, queue, 'working', loaded);
    const ready = job.leaseReady();
    const output = await job.race(ready === undefined ? def.work(args) : ready.then(() => def.work(args)));
    job.setDeadline(0);
    const text = toStoredJson(output, 'output');
    if (job.abortError) throw job.abortError;
    job.end();
    await job.write({
      kind: 'done',
      id: c.id,
      token: c.token,
      output: text,
      // No snapshot: a simple job has no machine, and its lifecycle is the record's
      // (store/lifecycleView.ts). The op stays the store's plain done (encodeOps.ts).
      snapshot: '',
      // A simple job's state is its status, which the record holds: `s` is written only to
      // replace the 'working' a load phase left there.
      state: def.load ? '"done"' : undefined,
      log: DONE_LOG,
    });
  } catch (thrown) {
    job.setDeadline(0);
    await settleFailure(job, life, thrown, { retry: def.retry, timeoutMs });
  }
}
