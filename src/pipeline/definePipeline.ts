// `definePipeline`: a user-written XState v5 machine run as a durable job. Registration refuses
// what cannot be persisted (XState persists an invoked or spawned actor by its `src` name and
// its id, never inline logic): invokes and spawns must name a `src` registered in
// `setup({ actors })`, and invokes need explicit ids (default ids shift when a machine is edited,
// which breaks stored children). `after` delays are supported durably (see timers.ts).

import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { DefinitionError, PipelineDefinitionError } from '../errors.js';
import { validateRetry, type RetryPolicy } from '../runtime/backoff.js';
import { DEFAULT_TIMEOUT_MS, validateName, validateVersionAndTimeout } from '../runtime/defineJob.js';
import { compileSteps } from './compileSteps.js';
import type { PipelineDefinition } from './PipelineDefinition.js';
import { runPipeline } from './runPipeline.js';
import { assertXstateSupported } from './xstateCompat.js';
import type { MigrateFunction } from './migrate.js';
import { machineFingerprint } from './fingerprint.js';

export interface DefinePipelineOptions<TMachine extends AnyStateMachine, N extends string = string> {
  name: N;
  version?: number;
  machine: TMachine;
  retry?: RetryPolicy;
  timeoutMs?: number;
  /**
   * Upgrades a job stored by an older version: gets its persisted machine snapshot, the version
   * that stored it and its pending timers; returns the snapshot for this version, or
   * `{ snapshot, timers }` to change the timers as well. Afterwards `after` timers of states no
   * longer active are dropped and active states' `after` delays without a timer are armed from
   * now (the job's log says which).
   */
  migrate?: MigrateFunction;
  /**
   * Run a step-only machine from its compiled step table (default true; the stored records are
   * the same). Set false when a step's input mapper or an assign reads `self` or `system`,
   * which a compiled run does not have.
   */
  compile?: boolean;
}

function checkNode(name: string, node: AnyStateNode, actors: Record<string, unknown>): void {
  const where = `state '${node.id}'`;
  for (const inv of node.invoke as { src: unknown; id?: string }[]) {
    const raw = (node.config.invoke ? ([] as unknown[]).concat(node.config.invoke) : []) as {
      src?: unknown;
      id?: unknown;
    }[];
    const cfg = raw.find((r) => r.src === inv.src || r.id === inv.id);
    if (typeof cfg?.src !== 'string') {
      throw new PipelineDefinitionError(
        name,
        node.id,
        `${where} invokes inline actor logic; register it in setup({ actors: { myStep: ... } }) and invoke it by name ({ src: 'myStep' }) so it can be persisted`,
      );
    }
    if (!(cfg.src in actors)) {
      throw new PipelineDefinitionError(
        name,
        node.id,
        `${where} invokes '${cfg.src}', which is not registered in setup({ actors })`,
      );
    }
    if (typeof cfg.id !== 'string' || cfg.id.length === 0) {
      throw new PipelineDefinitionError(
        name,
        node.id,
        `${where} invokes '${cfg.src}' without an explicit id; add { id: '...' } (default ids shift when the machine is edited and break stored jobs)`,
      );
    }
  }
  const actions = [...(node.entry ?? []), ...(node.exit ?? [])] as { type?: string; src?: unknown }[];
  for (const t of node.transitions.values())
    for (const tr of t) actions.push(...((tr.actions ?? []) as { type?: string; src?: unknown }[]));
  for (const a of actions) {
    const spawn = a;
    if (typeof a === 'function' && spawn.type === 'xstate.spawnChild' && typeof spawn.src !== 'string') {
      throw new PipelineDefinitionError(
        name,
        node.id,
        `${where} spawns inline actor logic, which cannot be persisted; register it in setup({ actors }) and spawn it by name`,
      );
    }
  }
  for (const child of Object.values(node.states) as AnyStateNode[]) checkNode(name, child, actors);
}

/**
 * Defines a pipeline: a durable multi-step job whose steps are the states of your machine. Its
 * input and output types are the machine's (`setup({ types: { input, output } })`), its name
 * as written: a `Client` given this definition checks them.
 * @example
 * const ingest = definePipeline({ name: 'ingest', version: 1, machine: ingestMachine });
 */
export function definePipeline<TMachine extends AnyStateMachine, N extends string = string>(
  options: DefinePipelineOptions<TMachine, N>,
): PipelineDefinition<TMachine, N> {
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
  const actors =
    (machine as { implementations?: { actors?: Record<string, unknown> } }).implementations?.actors ?? {};
  checkNode(options.name, machine.root, actors);
  let definitionJson: unknown;
  try {
    definitionJson = JSON.parse(JSON.stringify(machine.definition));
  } catch {
    definitionJson = undefined;
  }
  const def: PipelineDefinition<TMachine, N> = {
    kind: 'pipeline',
    name: options.name,
    version,
    machine,
    retry: options.retry,
    timeoutMs,
    migrate: options.migrate,
    definitionJson,
    fingerprint: machineFingerprint(machine),
    compiled: options.compile === false ? null : compileSteps(machine),
    runAttempt: (job, input, attemptTimeoutMs, host) => runPipeline(job, def, input, attemptTimeoutMs, host),
    preflight: assertXstateSupported,
  };
  return def;
}
