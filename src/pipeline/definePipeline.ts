// `definePipeline`: a user-written XState v5 machine run as a durable job. Registration refuses
// what cannot be persisted (checkMachine.ts: invokes and spawns must name a `src` registered in
// `setup({ actors })`, invokes need explicit ids). `after` delays are supported durably (see
// timers.ts).

import type { AnyStateMachine } from 'xstate';
import { validateRetry, type RetryPolicy } from '../runtime/backoff.js';
import { DEFAULT_TIMEOUT_MS, validateName, validateVersionAndTimeout } from '../runtime/defineJob.js';
import { compileSteps } from './compileSteps.js';
import { checkMachine } from './checkMachine.js';

export { PipelineDefinitionError } from './checkMachine.js';
import type { PipelineDefinition } from './PipelineDefinition.js';
import { runPipeline } from './runPipeline.js';

export interface DefinePipelineOptions<TMachine extends AnyStateMachine> {
  name: string;
  version?: number;
  machine: TMachine;
  retry?: RetryPolicy;
  timeoutMs?: number;
  migrate?: (snapshot: unknown, fromVersion: number) => unknown;
  /**
   * Run a step-only machine from its compiled step table (default true; the stored records are
   * the same). Set false when a step's input mapper or an assign reads `self` or `system`,
   * which a compiled run does not have.
   */
  compile?: boolean;
}

/**
 * Defines a pipeline: a durable multi-step job whose steps are the states of your machine.
 * @example
 * const ingest = definePipeline({ name: 'ingest', version: 1, machine: ingestMachine });
 */
export function definePipeline<TMachine extends AnyStateMachine>(
  options: DefinePipelineOptions<TMachine>,
): PipelineDefinition<TMachine> {
  validateName(options?.name, 'definePipeline');
  const where = `definePipeline('${options.name}')`;
  const machine = options.machine;
  if (!machine || typeof (machine as { getStateNodeById?: unknown }).getStateNodeById !== 'function') {
    throw new TypeError(`${where}: machine must be an XState v5 machine (setup({...}).createMachine({...}))`);
  }
  const version = options.version ?? 1;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  validateVersionAndTimeout(where, version, timeoutMs);
  validateRetry(options.retry, where);
  if (options.migrate !== undefined && typeof options.migrate !== 'function')
    throw new TypeError(`${where}: migrate must be a function`);
  if (options.compile !== undefined && typeof options.compile !== 'boolean')
    throw new TypeError(`${where}: compile must be a boolean`);
  checkMachine(options.name, machine);
  let definitionJson: unknown;
  try {
    definitionJson = JSON.parse(JSON.stringify(machine.definition));
  } catch {
    definitionJson = undefined;
  }
  const def: PipelineDefinition<TMachine> = {
    kind: 'pipeline',
    name: options.name,
    version,
    machine,
    retry: options.retry,
    timeoutMs,
    migrate: options.migrate,
    definitionJson,
    compiled: options.compile === false ? null : compileSteps(machine),
    runAttempt: (job, input, attemptTimeoutMs, host) => runPipeline(job, def, input, attemptTimeoutMs, host),
  };
  return def;
}
