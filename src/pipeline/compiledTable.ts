// The table a compiled pipeline is (compileSteps.ts makes it, runCompiledPipeline.ts walks it):
// its states, each a step, a wait or a final state, and their transitions. Apart from the compiler
// so the runner, its start and its stored text (compiledStart.ts, stepStateText.ts) read the table
// without the compiler. Everything in it is reproduced exactly as XState has it (compileSteps.ts's
// EXACT-COMPILE RULE): a transition's guard and assigns are XState's, a wait's delays in XState's
// entry order (its timers' stored order).

import type { AnyStateMachine, AnyStateNode } from 'xstate';
import type { StepFunction } from './step.js';

/** A machine's context, as XState hands it to guards, assigns and mappers. */
export type Ctx = Record<string, unknown>;
/** An event as the machine takes it. */
export type AnyEvent = { type: string; [k: string]: unknown };

export interface CompiledTransition {
  /** null: a targetless transition of a wait state's event (its assigns only; the state stays). */
  target: string | null;
  /** Returns whether the transition is enabled; throws what the guard throws. */
  guard: ((context: Ctx, event: AnyEvent) => boolean) | null;
  /** `assign` actions in order: each returns the next context. */
  assigns: ((context: Ctx, event: AnyEvent) => Ctx)[];
}

export interface CompiledStep {
  invokeId: string;
  src: string;
  fn: StepFunction;
  input: (context: Ctx, event: AnyEvent) => unknown;
  onDone: CompiledTransition[];
  onError: CompiledTransition[];
  /**
   * A step with a timeout: the state's `after` delays (its `on`: their transitions only); null:
   * none. Its timers are made on entry as a wait state's, the first due armed in memory (a step
   * runs: the run never parks on them); one that fires first leaves the state and stops the step.
   */
  after: CompiledWait | null;
  /**
   * The state's `on` events beside the invoke (null: none): an event taken while the step runs
   * takes its transition; one with a target leaves the state and stops the step (its signal).
   */
  events: Map<string, CompiledTransition[]> | null;
}

/** One `after` delay of a wait state or a step state (XState's delayed raise of `eventType`). */
export interface CompiledDelay {
  /** The after event's type, also its timer's id (`xstate.after.<delay>.<state id>`). */
  eventType: string;
  /** The delay as XState resolves it on entry (a number schedules it; anything else raises it at once). */
  delay: (context: Ctx, event: AnyEvent) => unknown;
}

/** A state that only waits: on `after` delays, on events (`on`), or both. */
export interface CompiledWait {
  /** In XState's entry order (the `after` keys as Object.keys lists them): its timers' order. */
  delays: CompiledDelay[];
  /** The state's transitions by event type: its after events' and its `on` events'. */
  on: Map<string, CompiledTransition[]>;
}

export interface CompiledState {
  name: string;
  /** XState's state node id ('<machine id>.<name>'). */
  nodeId: string;
  /** The state node (whyIgnored.ts reads its transitions). */
  node: AnyStateNode;
  step: CompiledStep | null; // null: a final state, or a wait state
  /** Set on a state that waits on timers or events (no step, not final). */
  wait: CompiledWait | null;
  /** A final state's own `output` (for the root's done-state event). */
  finalOutput: unknown;
}

export interface CompiledPipeline {
  machine: AnyStateMachine;
  initial: string;
  states: Map<string, CompiledState>;
  initialContext(input: unknown): Ctx;
  /** The machine's output on reaching `final` (XState's getMachineOutput). */
  output(context: Ctx, final: CompiledState, event: AnyEvent): unknown;
}
