// `definePipeline`: a user-written XState v5 machine run as a durable job. Registration refuses
// what cannot be persisted (checkMachine.ts: invokes and spawns must name a `src` registered in
// `setup({ actors })`, invokes need explicit ids). `after` delays are supported durably (see
// timers.ts).

import { validateRecordMode, type RecordMode } from '../runtime/recordMode.js';
import type { AnyStateMachine, InputFrom } from 'xstate';
import { DefinitionError } from '../errors.js';
import { validateRetry, type RetryPolicy } from '../runtime/backoff.js';
import {
  DEFAULT_TIMEOUT_MS,
  validateInputSchema,
  validateName,
  validateStallTimeout,
  validateVersionAndTimeout,
} from '../runtime/defineJob.js';
import type { InputSchema } from '../runtime/checkInput.js';
import { compileSteps } from './compileSteps.js';
import { checkMachine } from './checkMachine.js';
import type { PipelineDefinition } from './PipelineDefinition.js';
import { runPipeline } from './runPipeline.js';
import { assertXstateSupported } from './xstateCompat.js';
import type { MigrateFunction } from './migrate.js';
import { machineFingerprint } from './fingerprint.js';
import { machineGraph } from './machineGraph.js';
import { validateLimits, type DefinitionLimits } from '../runtime/definitionLimits.js';

export interface DefinePipelineOptions<
  TMachine extends AnyStateMachine,
  N extends string = string,
  E = InputFrom<TMachine>,
> extends DefinitionLimits {
  name: N;
  version?: number;
  machine: TMachine;
  /**
   * A schema for the input (any Standard Schema), checked at every enqueue as for defineJob;
   * its output must be the machine's input type, and is what the machine is started with.
   */
  input?: InputSchema<E, InputFrom<TMachine>>;
  retry?: RetryPolicy;
  timeoutMs?: number;
  /**
   * Fails an attempt that reported no progress (`progress()`, or a pipeline entering a state)
   * for this long (ms), with STALLED (the retry policy applies), beside the wall-clock
   * `timeoutMs`: a long job that keeps reporting runs on. Default: none.
   */
  stallTimeoutMs?: number;
  /** What its records keep, as defineJob's `record` (a child job always keeps a full record). */
  record?: RecordMode;
  /**
   * Upgrades a job stored by an older version: gets its persisted machine snapshot, the version
   * that stored it and its pending timers; returns the snapshot for this version, or
   * `{ snapshot, timers }` to change the timers as well. Afterwards `after` timers of states no
   * longer active are dropped and active states' `after` delays without a timer are armed from
   * now (the job's log says which).
   */
  migrate?: MigrateFunction;
  /**
   * Run a step-only machine (steps, with or without `after` timeouts, and states that only wait on
   * `after` delays and events) from its
   * compiled step table (default true; the stored records are the same). Set false when a step's
   * input mapper, an assign or a delay function reads `self` or `system`, which a compiled run
   * does not have.
   */
  compile?: boolean;
}

/**
 * Defines a pipeline: a durable multi-step job whose steps are the states of your machine. Its
 * input and output types are the machine's (`setup({ types: { input, output } })`), its name
 * as written: a `Client` given this definition checks them.
 * @example
 * const ingest = definePipeline({ name: 'ingest', version: 1, machine: ingestMachine });
 */
export function definePipeline<
  TMachine extends AnyStateMachine,
  N extends string = string,
  E = InputFrom<TMachine>,
>(options: DefinePipelineOptions<TMachine, N, E>): PipelineDefinition<TMachine, N, E> {
  validateName(options?.name, 'definePipeline');
  const where = `definePipeline('${options.name}')`;
  const machine = options.machine;
  if (!machine || typeof (machine as { getStateNodeById?: unknown }).getStateNodeById !== 'function') {
    throw new DefinitionError(
      `${where}: machine must be an XState v5 machine (setup({...}).createMachine({...}))`,
      { machine: options.name, field: 'machine' },
    );
  }
  const version = options.version ?? 1;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  validateVersionAndTimeout(where, options.name, version, timeoutMs);
  validateRetry(options.retry, where, options.name);
  const limits = validateLimits(options, where, options.name);
  validateInputSchema(options.input, where, options.name);
  validateStallTimeout(where, options.name, options.stallTimeoutMs);
  validateRecordMode(where, options.name, options.record);
  if (options.migrate !== undefined && typeof options.migrate !== 'function')
    throw new DefinitionError(`${where}: migrate must be a function`, {
      machine: options.name,
      field: 'migrate',
    });
  if (options.compile !== undefined && typeof options.compile !== 'boolean')
    throw new DefinitionError(`${where}: compile must be a boolean`, {
      machine: options.name,
      field: 'compile',
    });
  checkMachine(options.name, machine);
  let definitionJson: unknown;
  try {
    definitionJson = JSON.parse(JSON.stringify(machine.definition));
  } catch {
    definitionJson = undefined;
  }
  const def: PipelineDefinition<TMachine, N, E> = {
    kind: 'pipeline',
    name: options.name,
    version,
    machine,
    input: options.input,
    retry: options.retry,
    timeoutMs,
    stallTimeoutMs: options.stallTimeoutMs,
    ...(limits ? { limits } : {}),
    ...(options.record ? { record: options.record } : {}),
    migrate: options.migrate,
    definitionJson,
    fingerprint: machineFingerprint(machine),
    compiled: options.compile === false ? null : compileSteps(machine),
    // `this`, not `def`: a copy made with another version ({ ...def, version }) charts as itself.
    chart() {
      return machineGraph(this);
    },
    runAttempt: (job, input, attemptTimeoutMs, host) => runPipeline(job, def, input, attemptTimeoutMs, host),
    preflight: assertXstateSupported,
  };
  return def;
}
