// `defineJob`: the simple case, a load step and a work function run inside the shared
// lifecycle (machines/job.ts). Typed input and output flow from the definition to the client.

import { validateRecordMode, type RecordMode } from './recordMode.js';
import { DefinitionError } from '../errors.js';
import { validateRetry, type RetryPolicy } from './backoff.js';
import { validateLimits, type DefinitionLimits } from './definitionLimits.js';
import type { AttemptRunner } from './AttemptHost.js';
import { runSimpleJob, type SimpleJobLogic } from './runSimpleJob.js';
import { callerModule, resolveSandbox, type SandboxOption, type SandboxSpec } from './sandbox/sandboxSpec.js';
import { sandboxWork } from './sandbox/runInSandbox.js';
import { isInputSchema, type InputSchema } from './checkInput.js';
import type { LoadArgs, WorkArgs } from './workArgs.js';

export type { LoadArgs, WorkArgs } from './workArgs.js';

/**
 * `I`: the input `work` gets; `E`: the input `enqueue` takes, the same unless an input schema
 * transforms (its input type, while `I` is its output type).
 */
export interface JobDefinition<I = unknown, O = unknown, L = unknown, N extends string = string, E = I> {
  readonly kind: 'job';
  readonly name: N;
  readonly version: number;
  /** The input schema (Standard Schema) every enqueue is checked against; the job gets its output. */
  readonly input?: InputSchema<E, I>;
  readonly load?: (args: LoadArgs<I>) => Promise<L> | L;
  readonly work: (args: WorkArgs<I, L>) => Promise<O> | O;
  readonly retry?: RetryPolicy;
  /** Per-attempt time limit; on expiry the signal fires and the attempt fails. Default 300 s. */
  readonly timeoutMs: number;
  /** Where a sandbox thread finds this job's work; undefined: it runs in the worker's thread. */
  readonly sandbox: SandboxSpec | undefined;
  /**
   * Fails an attempt that reported no progress (`progress()`, or a pipeline entering a state)
   * for this long (ms), with STALLED (the retry policy applies), beside the wall-clock
   * `timeoutMs`: a long job that keeps reporting runs on. Default: none.
   */
  readonly stallTimeoutMs?: number;
  /** The limits of its queue (`concurrency`, `rateLimit`), as declared; docs/flow-control.md. */
  readonly limits?: DefinitionLimits;
  /** What its records keep by default (DefineJobOptions.record). */
  readonly record?: RecordMode;
  /** @internal How a supervisor runs one attempt (runSimpleJob.ts). */
  readonly runAttempt: AttemptRunner;
  /** Phantom types for the client (client/jobTypes.ts); never set. */
  readonly __types?: { input: E; output: O };
}

export interface DefineJobOptions<I, O, L, N extends string = string, E = I> extends DefinitionLimits {
  name: N;
  version?: number;
  /**
   * A schema for the input (any Standard Schema: zod, valibot, arktype, ...), checked at every
   * enqueue (Client, HTTP API, CLI, ingress): an input it refuses is refused with an
   * InputSchemaError naming the field, and nothing is written. The job is stored with, and
   * `work` gets, the schema's output (defaults and transforms applied).
   */
  input?: InputSchema<E, I>;
  load?: (args: LoadArgs<I>) => Promise<L> | L;
  work: (args: WorkArgs<I, L>) => Promise<O> | O;
  retry?: RetryPolicy;
  timeoutMs?: number;
  /**
   * Runs `work` in a worker_threads thread of its own for each attempt: work that blocks the
   * event loop or crashes fails that attempt only (timeoutMs terminates the thread). `'thread'`:
   * the thread imports the module that called defineJob and runs this definition's `work`;
   * `{ module, export }` names the module and export. `load` runs in the worker's thread.
   * docs/guide.md, Sandboxed jobs.
   * @example defineJob({ name: 'render', sandbox: 'thread', timeoutMs: 60_000, work: renderPdf })
   */
  sandbox?: SandboxOption;
  /** See JobDefinition.stallTimeoutMs. */
  stallTimeoutMs?: number;
  /**
   * What the job's record keeps (docs/concepts.md, Minimal records): `'minimal'` for high-volume
   * fire-and-forget work: no audit log and no stream entries for its moves, and the record is
   * deleted as the job ends done (its waiters get the result first); a failed one stays whole in
   * the dead letters. An enqueue's `record` option overrides it. Default `'full'`.
   * @example defineJob({ name: 'ping', record: 'minimal', work: async () => {} })
   */
  record?: RecordMode;
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

/** Refuses an `input` option that is not a Standard Schema (v1) at definition time. */
export function validateInputSchema(schema: unknown, where: string, machine: string): void {
  if (schema !== undefined && !isInputSchema(schema))
    throw new DefinitionError(
      `${where}: input must be a Standard Schema (zod, valibot, arktype, ...: an object with '~standard' version 1 and a validate function)`,
      { machine, field: 'input' },
    );
}

/** `stallTimeoutMs`, when given, is a number > 0 (DefinitionError naming the field else). */
export function validateStallTimeout(where: string, machine: string, stallTimeoutMs: unknown): void {
  if (stallTimeoutMs === undefined) return;
  if (typeof stallTimeoutMs !== 'number' || !Number.isFinite(stallTimeoutMs) || stallTimeoutMs <= 0)
    throw new DefinitionError(
      `${where}: stallTimeoutMs must be a number > 0 (got ${JSON.stringify(stallTimeoutMs)})`,
      { machine, field: 'stallTimeoutMs' },
    );
}

/**
 * Defines a job: optional `load`, then `work`, with retries and a per-attempt timeout. The
 * input type comes from the `input` schema when there is one, else from `work`'s (or `load`'s)
 * annotation; the output from what `work` returns, the name as written: a `Client` given this
 * definition checks all three.
 * @example
 * const resize = defineJob({
 *   name: 'resize',
 *   work: async ({ input }: { input: { path: string } }) => ({ out: await shrink(input.path) }),
 * });
 * @example
 * const thumb = defineJob({
 *   name: 'thumb',
 *   input: z.object({ path: z.string(), width: z.number().int().default(640) }),
 *   work: async ({ input }) => shrink(input.path, input.width), // width: number
 * });
 */
export function defineJob<I = unknown, O = unknown, L = undefined, N extends string = string, E = I>(
  options: DefineJobOptions<I, O, L, N, E>,
): JobDefinition<I, O, L, N, E> {
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
  validateInputSchema(options.input, where, machine);
  const sandbox =
    options.sandbox === undefined
      ? undefined
      : resolveSandbox(options.sandbox, where, machine, callerModule(defineJob));
  // A sandboxed job's attempts run a work that hands the call to a thread (runInSandbox.ts).
  let logic: SimpleJobLogic | undefined;
  validateStallTimeout(where, machine, options.stallTimeoutMs);
  validateRecordMode(where, machine, options.record);
  const limits = validateLimits(options, where, machine);
  const def: JobDefinition<I, O, L, N, E> = {
    kind: 'job',
    name: options.name,
    version,
    input: options.input,
    load: options.load,
    work: options.work,
    retry: options.retry,
    timeoutMs,
    sandbox,
    stallTimeoutMs: options.stallTimeoutMs,
    ...(limits ? { limits } : {}),
    ...(options.record ? { record: options.record } : {}),
    runAttempt: (job, input, attemptTimeoutMs, host) =>
      runSimpleJob(job, logic ?? def, input, attemptTimeoutMs, host.queue),
  };
  if (sandbox) logic = { load: def.load, retry: def.retry, work: sandboxWork(sandbox) };
  return def;
}
