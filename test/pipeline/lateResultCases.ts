// Behaviour cases of a step that settles after the job's own abort (its timeout, a cancel): one
// that answers its signal with a value (or with an error its state's onError takes) instead of
// the job's abort error. The aborted attempt MUST NOT take that result (xstateDriver.ts ABORTED,
// runCompiledPipeline.ts `aborted`): on both runtimes the job ends in the step's state, its
// snapshot the step's checkpoint (the step running), no transition of the late result taken, the
// next step never called (the XState runtime took it and ran the next step while the ending was
// written). Each case runs on both runtimes
// (behaviourSuite.ts) and must give the same records, stored snapshots, audit logs and calls.

import assert from 'node:assert/strict';
import { assign, setup } from 'xstate';
import { step } from '../../src/index.js';
import { eventually } from '../support/redis.js';
import type { Case, Probe, Result } from './behaviourCases.js';

/**
 * `a` (a step) -> `b` (step `answers`: it works until its signal fires, then notes why and
 * resolves 'answered', or rejects when `rejects`; onDone and onError `c`, noting the outcome in
 * the context) -> `c` (a step) -> `end`.
 */
function answersOnAbort(probe: Probe, rejects: boolean) {
  return setup({
    types: { context: {} as { via: string } },
    actors: {
      quick: step(async () => 'q'),
      answers: step<string, undefined>(async ({ signal }) => {
        await new Promise<void>((resolve) => {
          signal.addEventListener('abort', () => {
            probe.aborted.push(String((signal.reason as { reason?: string }).reason));
            resolve();
          });
        });
        if (rejects) throw new Error('answered with an error');
        return 'answered';
      }),
      next: step<string, string>(async ({ input }) => {
        probe.calls.push(`next:${input}`);
        return input;
      }),
    },
  }).createMachine({
    id: 'late',
    initial: 'a',
    context: { via: '' },
    states: {
      a: { invoke: { id: 'quick', src: 'quick', input: probe.mapper(() => undefined), onDone: 'b' } },
      b: {
        invoke: {
          id: 'answers',
          src: 'answers',
          onDone: { target: 'c', actions: assign({ via: ({ event }) => event.output }) },
          onError: { target: 'c', actions: assign({ via: 'error' }) },
        },
      },
      c: {
        invoke: { id: 'next', src: 'next', input: ({ context }) => context.via, onDone: 'end' },
      },
      end: { type: 'final' },
    },
    output: ({ context }) => context.via,
  });
}

/** The job ended in `b` with the step's checkpoint, no late result taken. */
function endedInB(r: Result): void {
  assert.equal(r.record.state, 'b');
  assert.deepEqual(r.calls, [], 'the next step never ran');
  const w = (r.record.snapshot as { w?: { value?: unknown; context?: unknown } } | null)?.w;
  if (w) {
    assert.equal(w.value, 'b');
    assert.deepEqual(w.context, { via: '' });
  }
  assert.ok(
    !r.log.some((e) => e.type === 'state' && e.state === 'c'),
    `no state after the abort is logged: ${JSON.stringify(r.log)}`,
  );
}

export const lateResultCases: Case[] = [false, true].flatMap((rejects): Case[] => [
  {
    name: `a step that ${rejects ? 'rejects (onError handled)' : 'resolves'} after the job’s timeout: its result is not taken, the job times out in its state`,
    compiles: true,
    timeoutMs: 300,
    retry: { maxAttempts: 1 },
    machine: (probe) => answersOnAbort(probe, rejects),
    expect: (r) => {
      assert.equal(r.record.status, 'failed');
      assert.equal(r.record.error?.code, 'TIMEOUT');
      endedInB(r);
    },
  },
  {
    name: `a step that ${rejects ? 'rejects (onError handled)' : 'resolves'} after a cancel: its result is not taken, the job is cancelled in its state`,
    compiles: true,
    machine: (probe) => answersOnAbort(probe, rejects),
    drive: async ({ id, client, probe }) => {
      await eventually(async () => (await client.get(id))?.state === 'b');
      assert.equal(await client.cancel(id), true);
      await client.waitForResult(id, { timeoutMs: 5000 }).catch(() => undefined);
      await eventually(() => probe.aborted.length > 0);
      assert.deepEqual(probe.aborted, ['cancel']);
    },
    expect: (r) => {
      assert.equal(r.record.status, 'cancelled');
      endedInB(r);
    },
  },
]);
