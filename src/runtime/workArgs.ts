// The arguments a simple job's `load` and `work` get (WorkArgs, re-exported by defineJob.ts): a
// plain object of own, enumerable properties, so that a job may spread it or pass it on whole.
//
// Made once per attempt, on the hot path (and a compiled pipeline's step args once per step,
// through withSignal). `signal` is a getter: an AbortController costs ~1 us,
// and most jobs never look at it. It is ONE getter shared by every args object (it finds its job
// under a hidden key), added after the data: an object literal with its own getters is built
// through V8's slow path with two fresh closures each time (~1.1 us and ~1 kB a job in the c=100
// no-op bench; this form ~0.3 us, bench/probes/plainCost.ts). `progress` is the job's own
// function (made once per job, on first use).

import type { ActiveJob } from './ActiveJob.js';

const JOB: unique symbol = Symbol('machinist.workArgs.job');

interface Holder {
  readonly [JOB]: ActiveJob;
}

const SIGNAL: PropertyDescriptor = {
  get(this: Holder): AbortSignal {
    return this[JOB].signal;
  },
  enumerable: true,
  configurable: true,
};

export interface WorkArgs<I, L> {
  input: I;
  /** What `load` returned (undefined without a load phase). */
  loaded: L;
  /** Fires on timeout, cancellation, lease loss and shutdown; `signal.reason` says which. */
  signal: AbortSignal;
  /** Reports progress (any JSON); coalesced to a few writes a second. */
  progress: (value: unknown) => void;
  /** The attempt in progress, 1-based. Lease requeues after a crash do not count. */
  attempt: number;
  jobId: string;
  queue: string;
  /** `jobId:state:attempt`: the same when this step re-runs after a crash. */
  idempotencyKey: string;
}

export type LoadArgs<I> = Omit<WorkArgs<I, undefined>, 'loaded'>;

/** What workArgs makes: a definition's `load` and `work` take it typed by their own I and L. */
export type SimpleJobArgs = WorkArgs<unknown, unknown>;

export function workArgs(
  job: ActiveJob,
  input: unknown,
  queue: string,
  state: 'loading' | 'working',
  loaded?: unknown,
): SimpleJobArgs {
  const attempt = job.claimed.attempt;
  const args = {
    input,
    progress: job.progress,
    attempt,
    jobId: job.id,
    queue,
    idempotencyKey: `${job.id}:${state}:${attempt}`,
    loaded,
  };
  return withSignal(args, job);
}

/**
 * `args` given the job's `signal` as an own, enumerable getter (the shared one above), its job
 * under the hidden key: a simple job's args, and a compiled pipeline step's (compiledStep.ts).
 */
export function withSignal<T extends object>(args: T, job: ActiveJob): T & { signal: AbortSignal } {
  // Hidden (not enumerable): a spread or a log of the args does not carry the job's internals.
  Object.defineProperty(args, JOB, { value: job });
  return Object.defineProperty(args, 'signal', SIGNAL) as T & { signal: AbortSignal };
}
