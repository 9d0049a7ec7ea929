// The definition `definePipeline` returns: what a supervisor needs to run a pipeline's jobs
// (its own file so that the runners can name it without importing definePipeline, which
// imports them).

import type { RecordMode } from '../runtime/recordMode.js';
import type { AnyStateMachine, InputFrom, OutputFrom } from 'xstate';
import type { RetryPolicy } from '../runtime/backoff.js';
import type { AttemptRunner } from '../runtime/AttemptHost.js';
import type { CompiledPipeline } from './compiledTable.js';
import type { MigrateFunction } from './migrate.js';
import type { InputSchema } from '../runtime/checkInput.js';
import type { MachineGraph } from '../store/chartModel.js';
import type { DefinitionLimits } from '../runtime/definitionLimits.js';

/** `E`: the input `enqueue` takes: the machine's, or the input schema's input type. */
export interface PipelineDefinition<
  TMachine extends AnyStateMachine = AnyStateMachine,
  N extends string = string,
  E = InputFrom<TMachine>,
> {
  readonly kind: 'pipeline';
  readonly name: N;
  readonly version: number;
  readonly machine: TMachine;
  /** The input schema checked at enqueue; the machine gets its output. */
  readonly input?: InputSchema<E, InputFrom<TMachine>>;
  readonly retry?: RetryPolicy;
  /** Limit on one attempt's running time (time parked does not count). Default 300 s. */
  readonly timeoutMs: number;
  /** Fails an attempt that reported no progress for this long (STALLED): see definePipeline. */
  readonly stallTimeoutMs?: number;
  /** What its records keep by default (defineJob's `record`). */
  readonly record?: RecordMode;
  /** The limits of its queue (`concurrency`, `rateLimit`), as declared; docs/flow-control.md. */
  readonly limits?: DefinitionLimits;
  /**
   * Upgrades a snapshot stored by an older version of this pipeline; returns the persisted
   * machine snapshot for this version, or `{ snapshot, timers }` to change its pending timers
   * too (migrate.ts). Without it, such jobs fail with UNKNOWN_VERSION.
   */
  readonly migrate?: MigrateFunction;
  /** The machine's definition as JSON, for charts. */
  readonly definitionJson: unknown;
  /**
   * A hash of the machine's shape (fingerprint.ts): a supervisor refuses to start when the
   * registry holds another one for this name and version (Supervisor acceptChangedMachines).
   */
  readonly fingerprint: string | undefined;
  /**
   * @internal The machine's chart model (machineGraph.ts), for the machine registry: carried
   * by the definition, as its runner is, so that the registry (src/runtime) draws nothing itself.
   */
  chart(): MachineGraph;
  /**
   * The step table a step-only machine compiles to (compileSteps.ts), run without XState
   * actors; null when the machine needs the full runtime or `compile: false` was given.
   */
  readonly compiled: CompiledPipeline | null;
  /** @internal How a supervisor runs one attempt (runPipeline.ts). */
  readonly runAttempt: AttemptRunner;
  /**
   * @internal Run by Supervisor.start() before anything is written: throws when no job of this
   * definition could run here (an XState whose internals moved: xstateCompat.ts).
   */
  readonly preflight: () => void;
  /** Phantom types for the client (client/jobTypes.ts): the machine's `types`; never set. */
  readonly __types?: { input: E; output: OutputFrom<TMachine> };
}
