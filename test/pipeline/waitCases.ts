// Behaviour cases of wait states (a state that only waits on one `after` delay): the compiled
// runner parks them and resumes them without an XState actor (runCompiledPipeline.ts), so each
// runs on both runtimes (behaviourSuite.ts) and must give the same records, parked snapshots,
// audit logs and step calls: parked on a due timer, resumed and run on; a short timer waited
// for in memory; a job woken by an event while its timer is not due; an event held while it
// waits; a retry after the wait; a guard that throws on the timer's transition; a timeout
// while it waits in memory; a delay that is not a number.

import assert from 'node:assert/strict';
import { assign, setup } from 'xstate';
import { step } from '../../src/index.js';
import { eventually } from '../support/redis.js';
import { normalised, type Case, type Probe, type Run } from './behaviourCases.js';

const types = (r: { log: Record<string, unknown>[] }) => r.log.map((e) => String(e.type));

/**
 * `first` (a step) -> `waiting` (after `pause`: `context.ms`, then `next`, with a guarded first
 * transition and assigns) -> `next` (a step, input from the context) -> `end`. `failNext`: how
 * often step `next` fails.
 */
function waitMachine(probe: Probe, opts: { failNext?: number; guardThrows?: boolean; delay?: unknown } = {}) {
  let left = opts.failNext ?? 0;
  return setup({
    types: { input: {} as { ms: number }, context: {} as { ms: number; n: number; via: string } },
    actors: {
      first: step<number, number>(async ({ input, attempt }) => {
        probe.calls.push(`first@${attempt}:${input}`);
        return input + 1;
      }),
      next: step<number, { n: number; via: string }>(async ({ input, attempt }) => {
        probe.calls.push(`next@${attempt}:${JSON.stringify(input)}`);
        if (left-- > 0) throw new Error('next failed');
        return input.n * 10;
      }),
    },
    delays: {
      pause: ({ context }) => ('delay' in opts ? (opts.delay as number) : context.ms),
    },
    guards: {
      big: ({ context }) => {
        if (opts.guardThrows) throw new Error('guard broke');
        return context.n > 100;
      },
    },
  }).createMachine({
    id: 'waits',
    initial: 'first',
    context: ({ input }) => ({ ms: input.ms, n: 1, via: '' }),
    states: {
      first: {
        invoke: {
          id: 'first',
          src: 'first',
          input: probe.mapper(({ context }) => context.n),
          onDone: { target: 'waiting', actions: assign({ n: ({ event }) => event.output }) },
        },
      },
      waiting: {
        after: {
          pause: [
            { guard: 'big', target: 'end', actions: assign({ via: 'big' }) },
            { target: 'next', actions: assign(({ context }) => ({ via: 'timer', n: context.n + 1 })) },
          ],
        },
      },
      next: {
        invoke: {
          id: 'next',
          src: 'next',
          input: probe.mapper(({ context }) => ({ n: context.n, via: context.via })),
          onDone: { target: 'end', actions: assign({ n: ({ event }) => event.output }) },
        },
      },
      end: { type: 'final' },
    },
    output: ({ context }) => ({ n: context.n, via: context.via }),
  });
}

/** Waits until the job is parked, and notes its parked record (snapshot, state, log) as a call:
 * both runtimes must store the same. */
export async function notedParked({ id, client, probe }: Run, times = 1): Promise<void> {
  await eventually(async () => (await client.get(id))?.status === 'waiting', 5000);
  const parked = normalised((await client.get(id))!, []);
  probe.calls.push(`parked${times}:${JSON.stringify(parked.record)}`);
}

export const waitCases: Case[] = [
  {
    name: 'a job parked on an after timer resumes when it is due and runs on from there',
    compiles: true,
    input: { ms: 600 },
    machine: (probe) => waitMachine(probe),
    drive: async (run) => {
      await notedParked(run);
      await run.client.waitForResult(run.id, { timeoutMs: 8000 });
    },
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      assert.deepEqual(r.record.output, { n: 30, via: 'timer' });
      assert.ok(types(r).includes('parked') && types(r).includes('resumed'), JSON.stringify(r.log));
      assert.deepEqual(r.calls.slice(-1), ['next@1:{"n":3,"via":"timer"}']);
    },
  },
  {
    name: 'an after timer due within the park threshold is waited for in memory',
    compiles: true,
    input: { ms: 40 },
    machine: (probe) => waitMachine(probe),
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      assert.deepEqual(r.record.output, { n: 30, via: 'timer' });
      assert.ok(!types(r).includes('parked'), JSON.stringify(r.log));
    },
  },
  {
    name: 'a parked job woken by an event its wait state does not take logs it and parks again until its timer',
    compiles: true,
    input: { ms: 1500 },
    machine: (probe) => waitMachine(probe),
    drive: async (run) => {
      await notedParked(run);
      await run.client.send(run.id, { type: 'PING' });
      await eventually(async () => (await run.client.events(run.id)).some((e) => e.type === 'event-ignored'));
      await notedParked(run, 2);
      await run.client.waitForResult(run.id, { timeoutMs: 8000 });
    },
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      assert.equal(types(r).filter((t) => t === 'parked').length, 2, JSON.stringify(r.log));
    },
  },
  {
    name: 'an event held until accepted while a job waits on its timer expires unaccepted, and the job runs on',
    compiles: true,
    input: { ms: 1200 },
    machine: (probe) => waitMachine(probe),
    drive: async (run) => {
      await notedParked(run);
      await run.client.send(run.id, { type: 'LATER' }, { until: 'accepted', ttlMs: 400 });
      await run.client.waitForResult(run.id, { timeoutMs: 8000 });
    },
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      assert.deepEqual(r.record.output, { n: 30, via: 'timer' });
    },
  },
  {
    name: 'a step after a timer that fails is retried from that step, not from the wait',
    compiles: true,
    input: { ms: 300 },
    retry: { maxAttempts: 3, backoff: { type: 'fixed', delayMs: 20 } },
    machine: (probe) => waitMachine(probe, { failNext: 1 }),
    drive: async (run) => {
      await notedParked(run);
      await run.client.waitForResult(run.id, { timeoutMs: 8000 });
    },
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      assert.equal(r.record.attempts, 2);
      assert.deepEqual(r.calls.slice(-2), ['next@1:{"n":3,"via":"timer"}', 'next@2:{"n":3,"via":"timer"}']);
    },
  },
  {
    name: 'a guard that throws on a resumed timer’s transition fails the job at once, in its wait state',
    compiles: true,
    input: { ms: 300 },
    retry: { maxAttempts: 3, backoff: { type: 'fixed', delayMs: 20 } },
    machine: (probe) => waitMachine(probe, { guardThrows: true }),
    drive: async (run) => {
      await notedParked(run);
      await run.client.waitForResult(run.id, { timeoutMs: 8000 });
    },
    expect: (r) => {
      assert.equal(r.record.status, 'failed');
      assert.equal(r.record.state, 'waiting');
      assert.equal(r.record.error?.code, 'ACTION_FAILED');
      assert.equal(r.record.attempts, 1);
    },
  },
  {
    name: 'a job that times out while it waits on a timer in memory ends timed out in its wait state',
    compiles: true,
    input: { ms: 150 },
    timeoutMs: 60,
    retry: { maxAttempts: 1 },
    machine: (probe) => waitMachine(probe),
    expect: (r) => {
      assert.equal(r.record.status, 'failed');
      assert.equal(r.record.state, 'waiting');
      assert.equal(r.record.error?.code, 'TIMEOUT');
    },
  },
  {
    name: 'a delay that is not a number takes its timer’s transition at once, as XState raises it',
    compiles: true,
    input: { ms: 5000 },
    machine: (probe) => waitMachine(probe, { delay: undefined }),
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      assert.deepEqual(r.record.output, { n: 30, via: 'timer' });
      assert.ok(!types(r).includes('parked'), JSON.stringify(r.log));
    },
  },
];
