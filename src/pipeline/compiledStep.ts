// A compiled run's call of one step (runCompiledPipeline.ts): the arguments it gets and the
// promise the driver races. Apart from the driver because it is the step's side of the contract,
// made as the XState runtime's step() makes it (step.ts): idempotencyKey `jobId:invokePath:attempt`,
// the job's signal and progress; a synchronous throw is a rejection, as fromPromise makes it.

import type { ActiveJob } from '../runtime/ActiveJob.js';
import type { CompiledStep } from './compiledTable.js';

function callStep(fn: (args: never) => Promise<unknown>, args: unknown): Promise<unknown> {
  try {
    return Promise.resolve(fn(args as never));
  } catch (err) {
    return Promise.reject(err); // fromPromise turns a synchronous throw into a rejection too
  }
}

/** Runs `step` of the claimed job with `input`: its output, or its error as a rejection. */
export function callCompiledStep(job: ActiveJob, step: CompiledStep, input: unknown): Promise<unknown> {
  const c = job.claimed;
  return callStep(step.fn, {
    input,
    // Getters: a step that never reads them costs no AbortController and no closure.
    get signal(): AbortSignal {
      return job.signal;
    },
    get progress(): (value: unknown) => void {
      return job.progress;
    },
    // As the XState runtime's step(): jobId:invokePath:attempt.
    idempotencyKey: `${c.id}:${step.invokeId}:${c.attempt}`,
    jobId: c.id,
    attempt: c.attempt,
  });
}
