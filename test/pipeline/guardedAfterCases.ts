// Behaviour cases of a step with a timeout whose `after` list is every-guarded (stepTimerCases.ts's
// machine, its `limit` list two guarded transitions, each guard noting its call): the compiled
// runner evaluates the guards as XState does, as the timer fires, in order, and when none is
// enabled ignores the after event, the timer spent, the step running on (runCompiledPipeline.ts
// timerTaken; a delay that is not a number: timedStep.ts ENTRY). Each case runs on both runtimes
// (behaviourSuite.ts) and must give the same records, stored snapshots (the running step's
// checkpoints, before and after its timer fired, noted as calls), audit logs and calls.

import assert from 'node:assert/strict';
import { eventually } from '../support/redis.js';
import { normalised, type Case, type Run } from './behaviourCases.js';
import { notedRunning, stepTimerMachine } from './stepTimerCases.js';

/** Waits until the job's checkpoint stores no timer of `slow` but `left` (its timer fired and was
 * ignored), and notes the record as a call: both runtimes must store the same. */
async function notedSpent({ id, client, probe }: Run, left: number): Promise<void> {
  const timers = async () => {
    const rec = await client.get(id);
    return rec?.state === 'slow' ? (rec.snapshot as { t?: unknown[] } | null)?.t?.length : undefined;
  };
  await eventually(async () => probe.calls.includes('guard B') && (await timers()) === left, 5000);
  const spent = normalised((await client.get(id))!, []);
  probe.calls.push(`spent:${JSON.stringify(spent.record)}`);
}

const from = (calls: string[], first: string) => calls.slice(calls.indexOf(first));

export const guardedAfterCases: Case[] = [
  {
    name: 'a step’s timeout none of whose guards is enabled is ignored, its timer spent, and the step runs on to its result',
    compiles: true,
    input: { limit: 300 },
    machine: (probe) => stepTimerMachine(probe, { work: 1500, guarded: 'shut' }),
    drive: async (run) => {
      await notedRunning(run);
      await notedSpent(run, 0);
      await run.client.waitForResult(run.id, { timeoutMs: 8000 });
    },
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      assert.deepEqual(r.record.output, { n: 2, via: 'slow 2' });
      const calls = r.calls.filter((c) => !c.startsWith('running:') && !c.startsWith('spent:'));
      assert.deepEqual(from(calls, 'guard A:2'), ['guard A:2', 'guard B', 'next:slow 2']);
      assert.match(
        r.calls.find((c) => c.startsWith('spent:'))!,
        /"t":\[\]/,
      );
    },
  },
  {
    name: 'a step’s every-guarded timeout takes its first enabled transition, in order, and aborts the step',
    compiles: true,
    input: { limit: 300 },
    machine: (probe) => stepTimerMachine(probe, { work: 5000, guarded: 'open' }),
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      assert.deepEqual(r.record.output, { n: 2, via: 'limit' });
      assert.deepEqual(from(r.calls, 'guard A:2'), [
        'guard A:2',
        'guard B',
        'slow aborted:AbortError',
        'late:limit',
      ]);
    },
  },
  {
    name: 'a step’s ignored timeout leaves its other timer armed, which takes its transition when due',
    compiles: true,
    input: { limit: 300 },
    machine: (probe) =>
      stepTimerMachine(probe, { work: 5000, guarded: 'shut', second: { ms: 900, to: 'late' } }),
    drive: async (run) => {
      await notedSpent(run, 1);
      await run.client.waitForResult(run.id, { timeoutMs: 8000 });
    },
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      assert.deepEqual(r.record.output, { n: 2, via: 'second' });
      const calls = r.calls.filter((c) => !c.startsWith('spent:'));
      assert.deepEqual(from(calls, 'guard A:2'), [
        'guard A:2',
        'guard B',
        'slow aborted:AbortError',
        'late:second',
      ]);
      assert.match(
        r.calls.find((c) => c.startsWith('spent:'))!,
        /"t":\[\{"id":"xstate\.after\.900\.timed\.slow"/,
      );
    },
  },
  {
    name: 'a delay that is not a number whose every-guarded list is not enabled is ignored on entry, and the step runs',
    compiles: true,
    input: { limit: undefined },
    machine: (probe) => stepTimerMachine(probe, { work: 30, guarded: 'shut' }),
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      assert.deepEqual(r.record.output, { n: 2, via: 'slow 2' });
      assert.deepEqual(r.calls, ['first:1', 'guard A:2', 'guard B', 'slow:{"n":2}:slow:1', 'next:slow 2']);
    },
  },
];
