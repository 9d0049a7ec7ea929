// What a compiled run (runCompiledPipeline.ts) hands the core to store (MachineDriver's
// checkpoint, park, done and failure), each as the XState runtime stores it, so either runtime
// restores it: a step or wait state's persisted snapshot and timers; the final state's persisted
// snapshot and text; the running state when aborted; the errored machine, with the snapshot before
// the transition that failed (what a retry resumes from). Apart from the driver because it is the
// run's stored form, not a step of the run: it reads the run's parts and changes none of them.

import type { CompiledState, Ctx } from './compiledTable.js';
import type { CheckpointParts, FailureParts, Outcome } from './machineDriver.js';
import { doneStateText, persistedStepState, stepStateText } from './stepStateText.js';
import { storedTimersJson } from './storedParts.js';
import type { StoredTimer } from './timers.js';

/** Where a compiled run is: its state, its context, and its step's input (a step state's). */
interface RunParts {
  state: CompiledState;
  context: Ctx;
  stepInput: unknown;
}

/** Why the machine errored; `event`: its own code threw taking that event (machineFault.ts). */
export interface Failure {
  thrown: unknown;
  /** The snapshot before the transition that failed: a retry resumes from it. */
  lastActive: unknown;
  event?: string;
}

/** A checkpoint of a run in a step or wait state, with the wait state's timers. */
export function compiledCheckpoint(run: RunParts, timers: StoredTimer[]): CheckpointParts {
  const w = stepStateText(run.state, run.context, run.stepInput);
  return { w, t: storedTimersJson(timers), state: JSON.stringify(run.state.name), context: run.context };
}

/** A run parked in a wait state, with its timers. */
export function compiledPark(
  run: RunParts,
  timers: StoredTimer[],
): { w: string; t: string; state: string; value: unknown } {
  const { w, t, state } = compiledCheckpoint(run, timers);
  return { w, t, state, value: run.state.name };
}

/**
 * A run that reached final state `state` with `output`: XState's done snapshot and its text.
 * One object, its snapshot made only when asked (the text is made from the parts, the snapshot
 * only if they are not plain JSON): most resumes end here, and made eagerly the done was three
 * objects and a closure more.
 */
class CompiledDone {
  constructor(
    private readonly state: CompiledState,
    readonly output: unknown,
    private readonly context: Ctx,
  ) {}

  get value(): unknown {
    return this.state.name;
  }

  get persisted(): unknown {
    const { output, context } = this;
    return { status: 'done', output, value: this.state.name, historyValue: {}, context, children: {} };
  }

  text(): string {
    return doneStateText(this.state.name, this.output, this.context, () => this.persisted);
  }
}

export function compiledDone(state: CompiledState, output: unknown, context: Ctx): CompiledDone {
  return new CompiledDone(state, output, context);
}

/** What the XState runtime stores: the running state when aborted, the errored machine else
 * (nothing when the run failed because its snapshot cannot be stored). */
export function compiledFailure(
  outcome: Outcome,
  failed: Failure | undefined,
  run: RunParts,
  timers: StoredTimer[],
): FailureParts {
  const { state, context } = run;
  const value = state.name;
  if (outcome.kind !== 'error')
    return {
      persisted: persistedStepState(state, context, run.stepInput),
      lastActive: undefined,
      timers,
      value,
    };
  if (!failed) return { persisted: undefined, lastActive: undefined, timers, value };
  const persisted = {
    status: 'error',
    error: failed.thrown,
    value,
    historyValue: {},
    context,
    children: {},
  };
  return { persisted, lastActive: failed.lastActive, timers, value };
}
