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

export function stepLifecycle(snapshot: LifecycleSnapshot, event: LifecycleEvent): LifecycleSnapshot {
  return jobMachine.transition(snapshot, event, scope);
}

export function lifecycleState(snapshot: LifecycleSnapshot): LifecycleState {
  return snapshot.value;
}

/** The success path of one attempt of a simple job, computed by the machine. */
export interface SuccessPath {
  /** After CLAIM: `loading` (with a load phase) or `working`. */
  claimed: LifecycleSnapshot;
  /** `working` (after LOADED when there is a load phase). */
  working: LifecycleSnapshot;
}

const successPaths = new Map<number, SuccessPath>();

/**
 * The lifecycle of a successful attempt depends only on (attempt, maxAttempts, hasLoad): the
 * machine computes it once per key and every job with that key reuses the (immutable)
 * snapshots. The machine stays the source of truth. Its `done` is not computed: the record's
 * status says it (store/lifecycleView.ts), so the done write stores no snapshot.
 */
export function successPath(attempt: number, maxAttempts: number, hasLoad: boolean): SuccessPath {
  const cacheable = attempt > 0 && attempt < 1024 && maxAttempts > 0 && maxAttempts < 1024;
  const key = ((attempt << 10) | maxAttempts) * 2 + (hasLoad ? 1 : 0);
  let p = cacheable ? successPaths.get(key) : undefined;
  if (p) return p;
  const claimed = stepLifecycle(initialLifecycle(attempt, maxAttempts), { type: 'CLAIM', hasLoad });
  const working = hasLoad ? stepLifecycle(claimed, { type: 'LOADED' }) : claimed;
  p = { claimed, working };
  if (cacheable) successPaths.set(key, p);
  return p;
}

/** Where a failed attempt goes: back in line for its next attempt, or failed for good. */
export interface FailureMove {
  state: 'queued' | 'failed';
  /** The attempt the job is at after the move (the next one when queued). */
  attempt: number;
}

const failureMoves = new WeakMap<LifecycleSnapshot, { retryable?: FailureMove; final?: FailureMove }>();
const ANY_ERROR = { name: 'Error', message: '' };

/**
 * The machine's FAIL from `life` (a `loading` or `working` snapshot), computed once per snapshot
 * and finality: the success path's snapshots are shared (successPath), so every failure of an
 * attempt of one shape reuses the move. Stepped per failure, XState's transition cost a failed
 * attempt ~34 us of worker CPU (bench/RESULTS.md, round thirteen).
 * THE RULE this rests on: the move depends on the attempt, max attempts and `final` alone, never
 * on the error (the machine's `canRetry` guard and `recordRetry` action, machines/job.ts);
 * test/runtime/failureMove.test.ts holds it equal to stepping the machine with the real error.
 */
export function failureMove(life: LifecycleSnapshot, final: boolean): FailureMove {
  let moves = failureMoves.get(life);
  if (!moves) failureMoves.set(life, (moves = {}));
  const known = final ? moves.final : moves.retryable;
  if (known) return known;
  const next = stepLifecycle(life, { type: 'FAIL', error: ANY_ERROR, final, retryAt: 0 });
  // Anything but a retry is the attempt's failure, as settleFailure always read it.
  const state = lifecycleState(next) === 'queued' ? 'queued' : 'failed';
  const move: FailureMove = { state, attempt: next.context.attempt };
  if (final) moves.final = move;
  else moves.retryable = move;
  return move;
}
