// `step`: promise logic for a pipeline state, with what a durable step needs: a stable
// idempotency key, the job's abort signal merged in, and progress reporting.

import { fromPromise, type PromiseActorLogic } from 'xstate';
import { actorPath, jobScopeOf } from './jobScope.js';

export interface StepArgs<I> {
  input: I;
  /** Fires when the step's state is left, and on timeout, cancel, lease loss or shutdown. */
  signal: AbortSignal;
  /**
   * `jobId:invokePath:attempt`: the same when this step re-runs after a crash, different on a
   * retry after failure. A state re-entered in a loop should add its loop index to the key.
   */
  idempotencyKey: string;
  jobId: string;
  attempt: number;
  progress: (value: unknown) => void;
}

export type StepFunction = (args: StepArgs<any>) => Promise<unknown>;

// The function behind each step's logic: a compiled pipeline (compileSteps.ts) calls it directly.
const stepFunctions = new WeakMap<object, StepFunction>();

export function stepFunctionOf(logic: unknown): StepFunction | undefined {
  return logic && typeof logic === 'object' ? stepFunctions.get(logic) : undefined;
}

/**
 * Wraps an async function as a pipeline step (register it in `setup({ actors })`).
 * @example setup({ actors: { fetchDoc: step(async ({ input, idempotencyKey }) => fetchIt(input.url, idempotencyKey)) } })
 */
export function step<O, I = any>(fn: (args: StepArgs<I>) => Promise<O>): PromiseActorLogic<O, I> {
  const logic = fromPromise<O, I>(async ({ input, signal, self, system }) => {
    const scope = jobScopeOf(system as object);
    // Merged on first use: AbortSignal.any (and the job's own signal) cost ~20 us per step,
    // and most steps never look at their signal.
    let merged: AbortSignal | undefined;
    const path = actorPath(self);
    // SURE LEASE (ActiveJob.leaseReady): at once while the job's lease is sure, else once it is,
    // unless its state was left meanwhile (its actor stopped: the step never starts).
    const ready = scope?.leaseReady();
    if (ready !== undefined) {
      await ready;
      if (signal.aborted) throw signal.reason;
    }
    return fn({
      input,
      get signal(): AbortSignal {
        return (merged ??= scope ? AbortSignal.any([signal, scope.signal]) : signal);
      },
      idempotencyKey: `${scope?.jobId ?? 'local'}:${path}:${scope?.attempt ?? 1}`,
      jobId: scope?.jobId ?? '',
      attempt: scope?.attempt ?? 1,
      progress: scope?.progress ?? (() => {}),
    });
  });
  stepFunctions.set(logic, fn as StepFunction);
  return logic;
}
