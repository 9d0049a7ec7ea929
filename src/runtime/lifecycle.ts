// Drives machines/job.ts without an actor. XState's exported `transition()` builds a throwaway
// actor for every call (~23 us here); the lifecycle has no side-effect actions and no children,
// so one inert scope can be shared, which brings a transition to ~3.5 us (measured with
// tmp benchmarks on this machine, Node 20, xstate 5.33).

import { createActor, type AnyActorScope } from 'xstate';
import {
  jobMachine,
  type LifecycleEvent,
  type LifecycleSnapshot,
  type LifecycleState,
} from '../../machines/job.js';

const self = createActor(jobMachine, { input: { attempt: 1, maxAttempts: 1 } });
const scope = {
  self,
  defer: () => {},
  id: '',
  logger: () => {},
  sessionId: '',
  stopChild: () => {},
  system: self.system,
  emit: () => {},
  actionExecutor: () => {},
} as unknown as AnyActorScope;

export function initialLifecycle(attempt: number, maxAttempts: number): LifecycleSnapshot {
  return jobMachine.getInitialSnapshot(scope, { attempt, maxAttempts });
}

/** Rebuilds the lifecycle from a persisted snapshot, without running anything. */
export function restoreLifecycle(persisted: { value: unknown; context: unknown }): LifecycleSnapshot {
  return jobMachine.resolveState({
    value: persisted.value as LifecycleState,
    context: persisted.context as any,
  });
}

export function stepLifecycle(snapshot: LifecycleSnapshot, event: LifecycleEvent): LifecycleSnapshot {
  return jobMachine.transition(snapshot, event, scope);
}

export function lifecycleState(snapshot: LifecycleSnapshot): LifecycleState {
  return snapshot.value;
}

/** The persisted form, without the input and output the job record already holds. */
export function persistLifecycle(snapshot: LifecycleSnapshot): { value: unknown; context: unknown } {
  return { value: snapshot.value, context: snapshot.context };
}
