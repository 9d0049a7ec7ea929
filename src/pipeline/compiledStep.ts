// A compiled run's call of one step (runCompiledPipeline.ts): the arguments it gets and the
// promise the driver races. Apart from the driver because it is the step's side of the contract,
// made as the XState runtime's step() makes it (step.ts): idempotencyKey `jobId:invokePath:attempt`,
// the job's signal and progress; a synchronous throw is a rejection, as fromPromise makes it.

import type { ActiveJob } from '../runtime/ActiveJob.js';
import { withSignal } from '../runtime/workArgs.js';
import type { CompiledStep } from './compiledTable.js';

function callStep(fn: (args: never) => Promise<unknown>, args: unknown): Promise<unknown> {
  try {
    return Promise.resolve(fn(args as never));
  } catch (err) {
    return Promise.reject(err); // fromPromise turns a synchronous throw into a rejection too
  }
}

/**
 * Runs `step` of the claimed job with `input`: its output, or its error as a rejection. Its args
 * are own, enumerable properties (a spread copy keeps them all), `signal` the shared getter of
 * withSignal (workArgs.ts): an object literal with its own getters is built through V8's slow
 * path, two fresh closures a step (~1.2 us each; this form ~0.7 us in all, three steps a job in
 * workload 6b). `progress` is the job's own function (made once per job, on first use).
 */
export function callCompiledStep(
  job: ActiveJob,
  step: CompiledStep,
  input: unknown,
  /** A step with a timeout: aborted when a timer leaves its state (XState stops its actor). */
  own?: AbortController,
): Promise<unknown> {
  // SURE LEASE (ActiveJob.leaseReady): at once while the lease is sure, else once it is again,
  // unless its state was left meanwhile (its own signal: the step never starts, as XState's).
  const ready = job.leaseReady();
  if (ready !== undefined)
    return ready.then(() =>
      own?.signal.aborted ? Promise.reject(own.signal.reason) : callCompiledStep(job, step, input, own),
    );
  const c = job.claimed;
  const args = {
    input,
    progress: job.progress,
    // As the XState runtime's step(): jobId:invokePath:attempt.
    idempotencyKey: `${c.id}:${step.invokeId}:${c.attempt}`,
    jobId: c.id,
    attempt: c.attempt,
  };
  if (!own) return callStep(step.fn, withSignal(args, job));
  // As the XState runtime's step(): its actor's signal merged with the job's, in that order (the
  // first aborted gives the reason), on first use.
  let merged: AbortSignal | undefined;
  const timed = Object.defineProperty(args, 'signal', {
    get: () => (merged ??= AbortSignal.any([own.signal, job.signal])),
    enumerable: true,
    configurable: true,
  }) as typeof args & { signal: AbortSignal };
  return callStep(step.fn, timed);
}
