// The runtime core (src/pipeline/pipelineRun.ts) times an attempt the same way whichever driver
// runs its machine: by the supervisor's deadline sweep (ActiveJob.deadline, swept by
// LeaseKeeper.ts), with no timer of its own. Run here without a supervisor, on a bare ActiveJob,
// so the test plays the sweep: it aborts the job with 'timeout' as the sweep does at the deadline.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from 'xstate';
import { definePipeline, step } from '../../src/index.js';
import { claimedJob, hostAt, runOn } from '../support/bareJob.js';

function hangingPipeline(compile: boolean, started: () => void) {
  const wait = step(
    ({ signal }) =>
      new Promise<never>((_, reject) => {
        started();
        signal.addEventListener('abort', () => reject(signal.reason as Error));
      }),
  );
  return definePipeline({
    name: 'hang',
    compile,
    machine: setup({ actors: { wait } }).createMachine({
      initial: 'waiting',
      states: { waiting: { invoke: { id: 'w', src: 'wait', onDone: 'end' } }, end: { type: 'final' } },
    }),
  });
}

const host = hostAt();

describe('pipeline runtime core', () => {
  for (const compile of [true, false]) {
    it(`times an attempt by the deadline sweep, not a timer of its own (${compile ? 'compiled' : 'XState actors'})`, async () => {
      let started!: () => void;
      const running = new Promise<void>((r) => (started = r));
      const def = hangingPipeline(compile, () => started());
      assert.equal(def.compiled !== null, compile);
      const { job, writes } = runOn(claimedJob({ machine: 'hang', version: def.version, maxAttempts: 1 }));
      const before = performance.now();
      const attempt = def.runAttempt(job, {}, 60_000, host);
      await running;
      assert.equal(job.timeoutMs, 60_000);
      assert.ok(job.deadline >= before + 60_000, `deadline ${job.deadline} set at the attempt's start`);
      assert.ok(job.deadline <= performance.now() + 60_000);
      job.abort('timeout', 'attempt timed out after 60000 ms'); // the sweep, at the deadline
      await attempt;
      assert.equal(job.deadline, 0, 'the deadline is cleared once the attempt ends');
      const end = writes.at(-1)!;
      assert.equal(end.kind, 'fail');
      assert.equal((JSON.parse((end as { error: string }).error) as { code: string }).code, 'TIMEOUT');
    });
  }
});
