// Runs one attempt of a `defineJob` job: load (optional), then work, inside the lifecycle.
// Each settled lifecycle state is written through the job's fenced writes.

import type { JobDefinition } from '../runtime/defineJob.js';
import { initialLifecycle, persistLifecycle, stepLifecycle } from '../runtime/lifecycle.js';
import type { ActiveJob } from './ActiveJob.js';
import { raceSignal, serializeOutput, settleFailure } from './settle.js';

const WORKING_LOG = ['{"type":"state","state":"working"}'];
const DONE_LOG = ['{"type":"done"}'];

export async function runSimpleJob(
  job: ActiveJob,
  def: JobDefinition<any, any, any>,
  input: unknown,
  timeoutMs: number,
  queue: string,
): Promise<void> {
  const c = job.claimed;
  let life = stepLifecycle(initialLifecycle(c.attempt, c.maxAttempts), {
    type: 'CLAIM',
    hasLoad: Boolean(def.load),
  });
  const timer = setTimeout(() => job.abort('timeout', `attempt timed out after ${timeoutMs} ms`), timeoutMs);
  const args = {
    input,
    signal: job.signal,
    progress: job.progress,
    attempt: c.attempt,
    jobId: c.id,
    queue,
    idempotencyKey: '',
  };
  try {
    let loaded: unknown;
    if (def.load) {
      args.idempotencyKey = `${c.id}:loading:${c.attempt}`;
      loaded = await raceSignal(def.load(args), job.signal);
      life = stepLifecycle(life, { type: 'LOADED' });
      job.status = 'working';
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
    args.idempotencyKey = `${c.id}:working:${c.attempt}`;
    const output = await raceSignal(def.work({ ...args, loaded }), job.signal);
    clearTimeout(timer);
    const text = serializeOutput(output);
    if (job.abortReason) throw job.signal.reason;
    life = stepLifecycle(life, { type: 'SUCCEED' });
    job.end();
    await job.write({
      kind: 'done',
      id: c.id,
      token: c.token,
      output: text,
      snapshot: `{"l":${JSON.stringify(persistLifecycle(life))}}`,
      state: '"done"',
      log: DONE_LOG,
    });
  } catch (thrown) {
    clearTimeout(timer);
    await settleFailure(job, life, thrown, { retry: def.retry, timeoutMs });
  }
}
