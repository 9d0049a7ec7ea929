// The lifecycle every job shares. The supervisor drives it with XState's pure `transition`
// (no actor, no timers) where a decision is the machine's: CLAIM and LOADED (computed once per
// attempt, max attempts and load phase: runtime/lifecycle.ts successPath) and FAIL (retry or
// fail: computed once per such snapshot and finality, failureMove, for runtime/settle.ts).
// SUCCEED and PARK decide nothing, so they are not stepped per job: the store makes every move
// by the table computed from this machine (src/store/lifecycleTable.ts, lcMove.lua), fenced by
// the lease, and refuses one the machine does not have.
//
//   queued -> loading -> working -> done
//      ^         |          |  \--> waiting (parked: children | event | timer) -> queued
//      |         +----------+--> FAIL, attempts left      -> queued (after a backoff delay)
//      |                    +--> FAIL, none left / final  -> failed
//      +-- RETRY_LATER (attempt not counted), REQUEUE (lease lost / shutdown)
//   any non-final state --CANCEL--> cancelled

import { assign, setup, type SnapshotFrom } from 'xstate';
import type { StoredError } from '../src/errors.js';

export interface LifecycleContext {
  /** The attempt in progress (1-based); a lease requeue or RETRY_LATER does not count one. */
  attempt: number;
  maxAttempts: number;
  /** The last error, kept after a retry so the record shows why it was retried. */
  error: StoredError | null;
  /** When a waiting/backed-off job becomes runnable again (ms since epoch), if it waits on time. */
  runAt: number | null;
}

export type LifecycleEvent =
  | { type: 'CLAIM'; hasLoad: boolean }
  | { type: 'LOADED' }
  | { type: 'SUCCEED' }
  | { type: 'FAIL'; error: StoredError; final: boolean; retryAt: number }
  | { type: 'RETRY_LATER'; runAt: number }
  | { type: 'PARK'; wakeAt: number | null }
  | { type: 'WAKE' }
  | { type: 'REQUEUE' }
  | { type: 'CANCEL' };

export const jobMachine = setup({
  types: {
    context: {} as LifecycleContext,
    events: {} as LifecycleEvent,
    input: {} as { attempt: number; maxAttempts: number },
  },
  guards: {
    hasLoad: ({ event }) => event.type === 'CLAIM' && event.hasLoad,
    canRetry: ({ context, event }) =>
      event.type === 'FAIL' && !event.final && context.attempt < context.maxAttempts,
  },
  actions: {
    recordRetry: assign(({ context, event }) =>
      event.type === 'FAIL' ? { attempt: context.attempt + 1, error: event.error, runAt: event.retryAt } : {},
    ),
    recordFailure: assign(({ event }) => (event.type === 'FAIL' ? { error: event.error, runAt: null } : {})),
    recordRetryLater: assign(({ event }) => (event.type === 'RETRY_LATER' ? { runAt: event.runAt } : {})),
    recordPark: assign(({ event }) => (event.type === 'PARK' ? { runAt: event.wakeAt } : {})),
    clearRunAt: assign({ runAt: null }),
  },
}).createMachine({
  id: 'job',
  initial: 'queued',
  context: ({ input }) => ({
    attempt: input.attempt,
    maxAttempts: input.maxAttempts,
    error: null,
    runAt: null,
  }),
  states: {
    queued: {
      tags: ['runnable'],
      on: {
        CLAIM: [
          { guard: 'hasLoad', target: 'loading', actions: 'clearRunAt' },
          { target: 'working', actions: 'clearRunAt' },
        ],
      },
    },
    loading: {
      tags: ['active'],
      on: {
        LOADED: 'working',
        FAIL: [
          { guard: 'canRetry', target: 'queued', actions: 'recordRetry' },
          { target: 'failed', actions: 'recordFailure' },
        ],
        RETRY_LATER: { target: 'queued', actions: 'recordRetryLater' },
        REQUEUE: 'queued',
      },
    },
    working: {
      tags: ['active'],
      on: {
        SUCCEED: 'done',
        FAIL: [
          { guard: 'canRetry', target: 'queued', actions: 'recordRetry' },
          { target: 'failed', actions: 'recordFailure' },
        ],
        RETRY_LATER: { target: 'queued', actions: 'recordRetryLater' },
        PARK: { target: 'waiting', actions: 'recordPark' },
        REQUEUE: 'queued',
      },
    },
    waiting: {
      tags: ['parked'],
      on: { WAKE: 'queued' },
    },
    done: { type: 'final' },
    failed: { type: 'final' },
    cancelled: { type: 'final' },
  },
  on: { CANCEL: '.cancelled' },
});

export type LifecycleSnapshot = SnapshotFrom<typeof jobMachine>;
export type LifecycleState = 'queued' | 'loading' | 'working' | 'waiting' | 'done' | 'failed' | 'cancelled';
