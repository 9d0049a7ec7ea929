// Behaviour cases of wait states with several `after` delays and `on` events (an approval that
// times out), run on both runtimes (behaviourSuite.ts) like waitCases.ts: which delay wins (the
// first due; of two restored due at once, the first stored, as XState restores them in order;
// one that is not a number at once), an event taken before the timers (which are cancelled),
// an event whose guard is false, an event held while a step runs and taken in the wait state,
// an event that comes after the timer moved the job on, a guard that throws on an event, and a
// state that waits on events alone (parked with no wake time).

import assert from 'node:assert/strict';
import { assign, setup } from 'xstate';
import { step } from '../../src/index.js';
import { eventually } from '../support/redis.js';
import type { Case, Probe, Result } from './behaviourCases.js';
import { notedParked } from './waitCases.js';

const types = (r: Result) => r.log.map((e) => String(e.type));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Approval = { type: 'APPROVE'; by: string } | { type: 'REJECT' } | { type: 'REMIND' };

interface Options {
  /** The step that waits for `probe.release` before it returns. */
  gate?: 'first' | 'next';
  guardThrows?: boolean;
  /** The wait state waits on its events alone. */
  onlyEvents?: boolean;
  /** Delay `fast` resolves to undefined (XState raises its event at once). */
  fastNotANumber?: boolean;
}

/**
 * `first` (a step) -> `waiting` (after 60000 -> `end` 'expired', `slow` -> `next`, `fast` ->
 * `next`: in this order, numeric keys first; on APPROVE guarded by `byBoss` -> `next`, REJECT ->
 * `end`) -> `next` (a step) -> `end`. The output says which way the job left `waiting`.
 */
function approvalMachine(probe: Probe, opts: Options = {}) {
  const gated = async (name: 'first' | 'next') => {
    if (opts.gate === name) await probe.release.promise;
  };
  return setup({
    types: {
      input: {} as { fast: number; slow: number },
      context: {} as { fast: number; slow: number; n: number; via: string; reminders: number },
      events: {} as Approval,
    },
    actors: {
      first: step<number, number>(async ({ input, attempt }) => {
        probe.calls.push(`first@${attempt}:${input}`);
        await gated('first');
        return input + 1;
      }),
      next: step<number, { n: number; via: string }>(async ({ input, attempt }) => {
        probe.calls.push(`next@${attempt}:${JSON.stringify(input)}`);
        await gated('next');
        return input.n * 10;
      }),
    },
    delays: {
      fast: ({ context }) => (opts.fastNotANumber ? (undefined as unknown as number) : context.fast),
      slow: ({ context }) => context.slow,
    },
    guards: {
      byBoss: ({ event }) => {
        if (opts.guardThrows) throw new Error('guard broke');
        return event.type === 'APPROVE' && event.by === 'boss';
      },
    },
  }).createMachine({
    id: 'approval',
    initial: 'first',
    context: ({ input }) => ({ fast: input.fast, slow: input.slow, n: 1, via: '', reminders: 0 }),
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
        ...(opts.onlyEvents
          ? {}
          : {
              after: {
                60000: { target: 'end', actions: assign({ via: 'expired' }) },
                slow: { target: 'next', actions: assign({ via: 'slow' }) },
                fast: { target: 'next', actions: assign({ via: 'fast' }) },
              },
            }),
        on: {
          APPROVE: {
            guard: 'byBoss',
            target: 'next',
            actions: assign({ via: ({ event }) => `approved by ${(event as { by: string }).by}` }),
          },
          REJECT: { target: 'end', actions: assign({ via: 'rejected' }) },
          // Targetless: the state stays, its timers run on.
          REMIND: { actions: assign({ reminders: ({ context }) => context.reminders + 1 }) },
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

/** The ids of the timers a noted park stored. */
const parkedTimers = (r: Result, times = 1): string[] => {
  const noted = r.calls.find((c) => c.startsWith(`parked${times}:`))!;
  return [...noted.matchAll(/"id":"(xstate\.after\.[^"]+)"/g)].map((m) => m[1]!);
};

export const waitEventCases: Case[] = [
  {
    name: 'of several after delays the first due wins, the others stored with it and cancelled when it fires',
    compiles: true,
    input: { fast: 600, slow: 5000 },
    machine: (probe) => approvalMachine(probe),
    drive: async (run) => {
      await notedParked(run);
      await run.client.waitForResult(run.id, { timeoutMs: 8000 });
    },
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      assert.deepEqual(r.record.output, { n: 20, via: 'fast' });
      assert.deepEqual(parkedTimers(r), [
        'xstate.after.60000.approval.waiting',
        'xstate.after.slow.approval.waiting',
        'xstate.after.fast.approval.waiting',
      ]);
      assert.equal(types(r).filter((t) => t === 'parked').length, 1, JSON.stringify(r.log));
    },
  },
  {
    name: 'a parked job resumed once two of its timers are due takes the first stored, as XState restores them in order',
    compiles: true,
    input: { fast: 400, slow: 700 },
    machine: (probe) => approvalMachine(probe),
    drive: async (run) => {
      await notedParked(run);
      await run.supervisor().stop({ graceMs: 0 });
      await sleep(1200); // both `fast` and `slow` are due when a worker claims it again
      await run.restart();
      await run.client.waitForResult(run.id, { timeoutMs: 8000 });
    },
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      // `slow` is stored before `fast` (the after keys' order), and both fire at once on restore.
      assert.deepEqual(r.record.output, { n: 20, via: 'slow' });
    },
  },
  {
    name: 'of several delays one that is not a number is taken at once, though a number comes before it',
    compiles: true,
    input: { fast: 5000, slow: 5000 },
    machine: (probe) => approvalMachine(probe, { fastNotANumber: true }),
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      assert.deepEqual(r.record.output, { n: 20, via: 'fast' });
      assert.ok(!types(r).includes('parked'), JSON.stringify(r.log));
    },
  },
  {
    name: 'an event its wait state takes wakes a parked job and leaves the state before its timers',
    compiles: true,
    input: { fast: 1500, slow: 5000 },
    machine: (probe) => approvalMachine(probe),
    drive: async (run) => {
      await notedParked(run);
      await run.client.send(run.id, { type: 'APPROVE', by: 'boss' });
      await run.client.waitForResult(run.id, { timeoutMs: 8000 });
    },
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      assert.deepEqual(r.record.output, { n: 20, via: 'approved by boss' });
      assert.deepEqual(r.calls.slice(-1), ['next@1:{"n":2,"via":"approved by boss"}']);
      assert.equal(types(r).filter((t) => t === 'parked').length, 1, JSON.stringify(r.log));
    },
  },
  {
    name: 'an event taken by a transition without a target changes the context of a parked job, which parks again on the same timers',
    compiles: true,
    input: { fast: 1500, slow: 5000 },
    machine: (probe) => approvalMachine(probe),
    drive: async (run) => {
      await notedParked(run);
      // One at a time: each wakes the job, which parks again (two sends could race its claim).
      for (const parks of [2, 3]) {
        await run.client.send(run.id, { type: 'REMIND' });
        await eventually(
          async () => (await run.client.events(run.id)).filter((e) => e.type === 'parked').length === parks,
        );
      }
      await notedParked(run, 2);
      await run.client.waitForResult(run.id, { timeoutMs: 8000 });
    },
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      assert.deepEqual(r.record.output, { n: 20, via: 'fast' });
      assert.deepEqual(parkedTimers(r, 2), parkedTimers(r, 1));
      assert.match(
        r.calls.find((c) => c.startsWith('parked2:'))!,
        /"reminders":2/,
      );
      assert.deepEqual(r.calls.slice(-1), ['next@1:{"n":2,"via":"fast"}']);
    },
  },
  {
    name: 'an event whose guard is false is ignored naming the guard, and the job waits on for its timer',
    compiles: true,
    input: { fast: 1500, slow: 5000 },
    machine: (probe) => approvalMachine(probe),
    drive: async (run) => {
      await notedParked(run);
      await run.client.send(run.id, { type: 'APPROVE', by: 'intern' });
      await eventually(async () => (await run.client.events(run.id)).some((e) => e.type === 'event-ignored'));
      await notedParked(run, 2);
      await run.client.waitForResult(run.id, { timeoutMs: 8000 });
    },
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      assert.deepEqual(r.record.output, { n: 20, via: 'fast' });
      const ignored = r.log.find((e) => e.type === 'event-ignored')!;
      assert.deepEqual(ignored.guards, ['byBoss'], JSON.stringify(ignored));
      assert.equal(types(r).filter((t) => t === 'parked').length, 2, JSON.stringify(r.log));
    },
  },
  {
    name: 'an event held until accepted whose guard is false is stored with the parked job, offered again, and dropped at the end',
    compiles: true,
    input: { fast: 1500, slow: 5000 },
    machine: (probe) => approvalMachine(probe),
    drive: async (run) => {
      await notedParked(run);
      await run.client.send(run.id, { type: 'APPROVE', by: 'intern' }, { until: 'accepted' });
      await eventually(async () => (await run.client.events(run.id)).some((e) => e.type === 'event-held'));
      await notedParked(run, 2);
      await run.client.waitForResult(run.id, { timeoutMs: 8000 });
    },
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      assert.deepEqual(r.record.output, { n: 20, via: 'fast' });
      const held = r.log.find((e) => e.type === 'event-held')!;
      assert.deepEqual(held.guards, ['byBoss'], JSON.stringify(held));
      assert.match(
        r.calls.find((c) => c.startsWith('parked2:'))!,
        /"h":\[\{"mx":\{"until":"accepted"\}/,
      );
      const dropped = r.log.find((e) => e.type === 'event-ignored')!;
      assert.equal(dropped.reason, 'the job ended before a state took it', JSON.stringify(r.log));
    },
  },
  {
    name: 'an event held until accepted while a step runs is taken when the job enters its wait state',
    compiles: true,
    input: { fast: 5000, slow: 9000 },
    machine: (probe) => approvalMachine(probe, { gate: 'first' }),
    drive: async (run) => {
      // The step's state stored (its checkpoint, with the log's `started`), not only its call: the
      // event's log entries then follow `started` on both runtimes.
      await eventually(async () => (await run.client.get(run.id))?.state === 'first');
      await run.client.send(run.id, { type: 'REJECT' }, { until: 'accepted' });
      await eventually(async () => (await run.client.events(run.id)).some((e) => e.type === 'event-held'));
      run.probe.release.open();
      await run.client.waitForResult(run.id, { timeoutMs: 8000 });
    },
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      assert.deepEqual(r.record.output, { n: 2, via: 'rejected' });
      assert.ok(!types(r).includes('parked'), JSON.stringify(r.log));
      const held = r.log.find((e) => e.type === 'event-held')!;
      assert.equal(held.reason, "no transition for 'REJECT' in the active states", JSON.stringify(held));
    },
  },
  {
    name: 'an event sent after the timer moved the job on is ignored by the state it is in',
    compiles: true,
    input: { fast: 400, slow: 9000 },
    machine: (probe) => approvalMachine(probe, { gate: 'next' }),
    drive: async (run) => {
      // The next step's state stored (the resume's first flush, with its `resumed`), not only the
      // step called: the event's log entries then follow the resume's on both runtimes. Within
      // eventually's 5 s: a wake that late is a defect (one was: WorkSignals' SIGNAL AFTER KICK).
      await eventually(async () => (await run.client.get(run.id))?.state === 'next');
      await run.client.send(run.id, { type: 'REJECT' });
      await eventually(async () => (await run.client.events(run.id)).some((e) => e.type === 'event-ignored'));
      run.probe.release.open();
      await run.client.waitForResult(run.id, { timeoutMs: 8000 });
    },
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      assert.deepEqual(r.record.output, { n: 20, via: 'fast' });
      const ignored = r.log.find((e) => e.type === 'event-ignored')!;
      assert.equal(ignored.state, 'next', JSON.stringify(ignored));
    },
  },
  {
    name: 'a guard that throws on an event fails the job at once, in its wait state',
    compiles: true,
    input: { fast: 5000, slow: 9000 },
    retry: { maxAttempts: 3, backoff: { type: 'fixed', delayMs: 20 } },
    machine: (probe) => approvalMachine(probe, { guardThrows: true }),
    drive: async (run) => {
      await notedParked(run);
      await run.client.send(run.id, { type: 'APPROVE', by: 'boss' });
      await run.client.waitForResult(run.id, { timeoutMs: 8000 });
    },
    expect: (r) => {
      assert.equal(r.record.status, 'failed');
      assert.equal(r.record.state, 'waiting');
      assert.equal(r.record.error?.code, 'ACTION_FAILED');
      assert.match(r.record.error.message, /guard broke/);
      assert.equal(r.record.attempts, 1);
    },
  },
  {
    name: 'a state that waits on events alone parks with no wake time until one comes',
    compiles: true,
    input: { fast: 0, slow: 0 },
    machine: (probe) => approvalMachine(probe, { onlyEvents: true }),
    drive: async (run) => {
      await notedParked(run);
      await run.client.send(run.id, { type: 'PING' });
      await eventually(async () => (await run.client.events(run.id)).some((e) => e.type === 'event-ignored'));
      await notedParked(run, 2);
      await run.client.send(run.id, { type: 'APPROVE', by: 'boss' });
      await run.client.waitForResult(run.id, { timeoutMs: 8000 });
    },
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      assert.deepEqual(r.record.output, { n: 20, via: 'approved by boss' });
      assert.deepEqual(parkedTimers(r), []);
      const parked = r.log.filter((e) => e.type === 'parked');
      assert.deepEqual(
        parked.map((e) => e.wakeAt),
        [null, null],
        JSON.stringify(r.log),
      );
      const ignored = r.log.find((e) => e.type === 'event-ignored')!;
      assert.equal(ignored.reason, "no transition for 'PING' in the active states");
    },
  },
];
