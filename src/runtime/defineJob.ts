// `defineJob`: the simple case, a load step and a work function run inside the shared
// lifecycle (machines/job.ts). Typed input and output flow from the definition to the client.

import { DefinitionError } from '../errors.js';
import { validateRetry, type RetryPolicy } from './backoff.js';
import type { AttemptRunner } from './AttemptHost.js';
import { runSimpleJob } from './runSimpleJob.js';

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

export interface JobDefinition<I = unknown, O = unknown, L = unknown, N extends string = string> {
  readonly kind: 'job';
  readonly name: N;
  readonly version: number;
  readonly load?: (args: LoadArgs<I>) => Promise<L> | L;
  readonly work: (args: WorkArgs<I, L>) => Promise<O> | O;
  readonly retry?: RetryPolicy;
  /** Per-attempt time limit; on expiry the signal fires and the attempt fails. Default 300 s. */
  readonly timeoutMs: number;
  /**
   * Fails an attempt that reported no progress (`progress()`, or a pipeline entering a state)
   * for this long (ms), with STALLED (the retry policy applies), beside the wall-clock
   * `timeoutMs`: a long job that keeps reporting runs on. Default: none.
   */
  readonly stallTimeoutMs?: number;
  /** @internal How a supervisor runs one attempt (runSimpleJob.ts). */
  readonly runAttempt: AttemptRunner;
  /** Phantom types for the client (client/jobTypes.ts); never set. */
  readonly __types?: { input: I; output: O };
}

export interface DefineJobOptions<I, O, L, N extends string = string> {
  name: N;
  version?: number;
  load?: (args: LoadArgs<I>) => Promise<L> | L;
  work: (args: WorkArgs<I, L>) => Promise<O> | O;
  retry?: RetryPolicy;
  timeoutMs?: number;
  /** See JobDefinition.stallTimeoutMs. */
  stallTimeoutMs?: number;
}

export const DEFAULT_TIMEOUT_MS = 300_000;
const NAME = /^[A-Za-z][A-Za-z0-9._-]{0,99}$/;

export function validateName(name: unknown, where: string): asserts name is string {
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw new DefinitionError(
      `${where}: name must start with a letter and hold up to 100 letters, digits, '.', '_' or '-' (got ${JSON.stringify(name)})`,
      { field: 'name' },
    );
  }
}

export function validateVersionAndTimeout(
  where: string,
  machine: string,
  version: unknown,
  timeoutMs: unknown,
): void {
  if (!Number.isInteger(version) || (version as number) < 1) {
    throw new DefinitionError(`${where}: version must be an integer >= 1 (got ${String(version)})`, {
      machine,
      field: 'version',
    });
  }
  if (!Number.isFinite(timeoutMs) || (timeoutMs as number) <= 0) {
    throw new DefinitionError(`${where}: timeoutMs must be a number > 0 (got ${String(timeoutMs)})`, {
      machine,
      field: 'timeoutMs',
    });
  }
}

/** `stallTimeoutMs`, when given, is a number > 0 (DefinitionError naming the field else). */
export function validateStallTimeout(where: string, machine: string, stallTimeoutMs: unknown): void {
  if (stallTimeoutMs === undefined) return;
  if (typeof stallTimeoutMs !== 'number' || !Number.isFinite(stallTimeoutMs) || stallTimeoutMs <= 0)
    throw new DefinitionError(
      `${where}: stallTimeoutMs must be a number > 0 (got ${JSON.stringify(stallTimeoutMs)})`,
      {
        machine,
        field: 'stallTimeoutMs',
      },
    );
}

/**
 * Defines a job: optional `load`, then `work`, with retries and a per-attempt timeout. The
 * input type comes from `work`'s (or `load`'s) annotation, the output from what `work` returns,
 * the name as written: a `Client` given this definition checks all three.
 * @example
 * const resize = defineJob({
 *   name: 'resize',
 *   work: async ({ input }: { input: { path: string } }) => ({ out: await shrink(input.path) }),
 * });
 */
export function defineJob<I = unknown, O = unknown, L = undefined, N extends string = string>(
  options: DefineJobOptions<I, O, L, N>,
): JobDefinition<I, O, L, N> {
  const where = `defineJob(${JSON.stringify(options?.name)})`;
  validateName(options?.name, 'defineJob');
  const machine = options.name;
  if (typeof options.work !== 'function')
    throw new DefinitionError(`${where}: work must be a function`, { machine, field: 'work' });
  if (options.load !== undefined && typeof options.load !== 'function')
    throw new DefinitionError(`${where}: load must be a function`, { machine, field: 'load' });
  const version = options.version ?? 1;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  validateVersionAndTimeout(where, machine, version, timeoutMs);
  validateRetry(options.retry, where, machine);
  validateStallTimeout(where, machine, options.stallTimeoutMs);
  const def: JobDefinition<I, O, L, N> = {
    kind: 'job',
    name: options.name,
    version,
    load: options.load,
    work: options.work,
    retry: options.retry,
    timeoutMs,
    stallTimeoutMs: options.stallTimeoutMs,
    runAttempt: (job, input, attemptTimeoutMs, host) =>
      runSimpleJob(job, def, input, attemptTimeoutMs, host.queue),
  };
  return def;
}
