// Behaviour cases of a step with a timeout (a step state with `after` delays): the compiled runner
// makes its timers on entry as XState does, arms the one due first in memory while the step runs,
// and takes the first of the step's result and its timer (runCompiledPipeline.ts). Each case runs
// on both runtimes (behaviourSuite.ts) and must give the same records, stored snapshots (the
// running step's checkpoint with its timers is noted as a call), audit logs and step calls: the
// timer fires first and the step is aborted (its late result ignored); the step settles first
// and its timer is cancelled; two delays, the one due first taking its transition; a named delay
// from the context; a step that fails before its timer; a timeout while the step runs; a restore
// of its checkpoint (behaviourSuite.ts hands one over between the runtimes).

import assert from 'node:assert/strict';
import { assign, setup } from 'xstate';
import { step } from '../../src/index.js';
import { eventually } from '../support/redis.js';
import { normalised, type Case, type Probe, type Result, type Run } from './behaviourCases.js';

const types = (r: { log: Record<string, unknown>[] }) => r.log.map((e) => String(e.type));
const running = (r: { calls: string[] }) => r.calls.find((c) => c.startsWith('running:')) ?? '';

interface Opts {
  /** How long step `slow` works (ms) before it returns; it returns at once when aborted. */
  work: number;
  /** Step `slow` fails instead of returning. */
  fails?: boolean;
  /** A second delay beside `limit`: its ms, and where it leads. */
  second?: { ms: number; to: 'late' | 'end' };
  /** The timeout's list opens with a guard that throws; its transition's assign throws. */
  guardThrows?: boolean;
  assignThrows?: boolean;
  /** The timeout's list is every-guarded (guardedAfterCases.ts): `A` (to `end`), then `B` (to
   * `late`), each noting its call; `B` is enabled when this is 'open'. */
  guarded?: 'open' | 'shut';
}

/**
 * `first` (a step) -> `slow` (a step with a timeout: onDone `next`, onError `failed`, after
 * `limit` (a named delay, `context.limit`) `late`, and `opts.second` if given) -> `next` / `late`
 * (steps) -> `end`. Step `slow` notes its abort (the reason's name) as a call, then returns
 * 'late result' when its state was left (a transition that took it would show in the output).
 */
export function stepTimerMachine(probe: Probe, opts: Opts) {
  return setup({
    types: { input: {} as { limit: number }, context: {} as { limit: number; n: number; via: string } },
    actors: {
      first: step<number, number>(async ({ input }) => {
        probe.calls.push(`first:${input}`);
        return input + 1;
      }),
      slow: step<string, { n: number }>(async ({ input, signal, idempotencyKey }) => {
        probe.calls.push(`slow:${JSON.stringify(input)}:${idempotencyKey.split(':').slice(1).join(':')}`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, opts.work);
          signal.addEventListener('abort', () => {
            probe.calls.push(`slow aborted:${(signal.reason as Error).name}`);
            clearTimeout(t);
            resolve();
          });
        });
        // Aborted by its state's exit (a timer): a late result, which no transition may take. The
        // job's own abort (timeout, cancel) is rejected with: the run ends there on both runtimes.
        if (signal.aborted && (signal.reason as Error).name === 'AbortError') return 'late result';
        if (signal.aborted) throw signal.reason;
        if (opts.fails) throw new Error('slow failed');
        return `slow ${input.n}`;
      }),
      next: step<string, string>(async ({ input }) => {
        probe.calls.push(`next:${input}`);
        return input;
      }),
      late: step<string, string>(async ({ input }) => {
        probe.calls.push(`late:${input}`);
        return input;
      }),
    },
    delays: { limit: ({ context }) => context.limit },
    guards: {
      broken: () => {
        throw new Error('guard broke');
      },
      a: ({ context }) => {
        probe.calls.push(`guard A:${context.n}`);
        return false;
      },
      b: () => {
        probe.calls.push('guard B');
        return opts.guarded === 'open';
      },
    },
  }).createMachine({
    id: 'timed',
    initial: 'first',
    context: ({ input }) => ({ limit: input.limit, n: 1, via: '' }),
    states: {
      first: {
        invoke: {
          id: 'first',
          src: 'first',
          input: probe.mapper(({ context }) => context.n),
          onDone: { target: 'slow', actions: assign({ n: ({ event }) => event.output }) },
        },
      },
      slow: {
        invoke: {
          id: 'slow',
          src: 'slow',
          input: probe.mapper(({ context }) => ({ n: context.n })),
          onDone: { target: 'next', actions: assign({ via: ({ event }) => event.output }) },
          onError: { target: 'failed', actions: assign({ via: 'error' }) },
        },
        after: {
          limit: opts.guarded
            ? [
                { guard: 'a', target: 'end' as const, actions: assign({ via: 'A' }) },
                { guard: 'b', target: 'late' as const, actions: assign({ via: 'limit' }) },
              ]
            : [
                ...(opts.guardThrows ? [{ guard: 'broken' as const, target: 'end' as const }] : []),
                {
                  target: 'late',
                  actions: assign({
                    via: () => {
                      if (opts.assignThrows) throw new Error('assign broke');
                      return 'limit';
                    },
                  }),
                },
              ],
          ...(opts.second
            ? {
                [opts.second.ms]: [
                  { guard: () => false, target: 'end' },
                  { target: opts.second.to, actions: assign({ via: 'second' }) },
                ],
              }
            : {}),
        },
      },
      next: {
        invoke: {
          id: 'next',
          src: 'next',
          input: probe.mapper(({ context }) => context.via),
          onDone: 'end',
        },
      },
      late: {
        invoke: {
          id: 'late',
          src: 'late',
          input: probe.mapper(({ context }) => context.via),
          onDone: 'end',
        },
      },
      failed: { type: 'final' },
      end: { type: 'final' },
    },
    output: ({ context }) => ({ n: context.n, via: context.via }),
  });
}

/** Waits until the job's checkpoint of state `slow` (its step running) is stored, and notes the
 * record (snapshot with its timers) as a call: both runtimes must store the same. */
export async function notedRunning({ id, client, probe }: Run): Promise<void> {
  await eventually(async () => (await client.get(id))?.state === 'slow', 5000);
  const running = normalised((await client.get(id))!, []);
  probe.calls.push(`running:${JSON.stringify(running.record)}`);
}

export const stepTimerCases: Case[] = [
  {
    name: 'a step whose timeout fires first is aborted, its late result ignored, and the timer’s transition taken',
    compiles: true,
    input: { limit: 400 },
    machine: (probe) => stepTimerMachine(probe, { work: 5000 }),
    drive: async (run) => {
      await notedRunning(run);
      await run.client.waitForResult(run.id, { timeoutMs: 8000 });
    },
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      assert.deepEqual(r.record.output, { n: 2, via: 'limit' });
      assert.deepEqual(r.calls.slice(-2), ['slow aborted:AbortError', 'late:limit']);
      assert.match(running(r), /"state":"slow".*"t":\[\{"id":"xstate\.after\.limit\.timed\.slow"/);
      assert.ok(!types(r).includes('parked'), 'a running step does not park on its timer');
    },
  },
  {
    name: 'a step that settles before its timeout takes onDone, and its state’s exit cancels the timer',
    compiles: true,
    // The step works long enough for its running checkpoint to be seen (30 ms was missed on a
    // loaded host), and its timer is far beyond that.
    input: { limit: 3000 },
    machine: (probe) => stepTimerMachine(probe, { work: 300 }),
    drive: async (run) => {
      await notedRunning(run);
      await run.client.waitForResult(run.id, { timeoutMs: 8000 });
    },
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      assert.deepEqual(r.record.output, { n: 2, via: 'slow 2' });
      assert.deepEqual(r.calls.slice(-1), ['next:slow 2']);
      assert.ok(!r.calls.some((c) => c.startsWith('slow aborted')), JSON.stringify(r.calls));
    },
  },
  {
    name: 'a step that fails before its timeout takes onError, its timer cancelled',
    compiles: true,
    input: { limit: 400 },
    machine: (probe) => stepTimerMachine(probe, { work: 10, fails: true }),
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      assert.equal(r.record.state, 'failed');
      assert.deepEqual(r.record.output, { n: 2, via: 'error' });
    },
  },
  {
    name: 'a step with two timeouts takes the transition of the one due first (a guarded list ending unguarded)',
    compiles: true,
    input: { limit: 60_000 },
    machine: (probe) => stepTimerMachine(probe, { work: 5000, second: { ms: 400, to: 'late' } }),
    drive: async (run) => {
      await notedRunning(run);
      await run.client.waitForResult(run.id, { timeoutMs: 8000 });
    },
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      assert.deepEqual(r.record.output, { n: 2, via: 'second' });
      assert.deepEqual(r.calls.slice(-2), ['slow aborted:AbortError', 'late:second']);
      // Both stored while the step ran, in XState's entry order (its `after` keys as Object.keys
      // lists them: an integer key first).
      assert.match(running(r), /xstate\.after\.400\.timed\.slow.*xstate\.after\.limit\.timed\.slow/);
    },
  },
  // A guard or an assign that throws on the timer's transition: the machine errors, the step
  // abandoned untold (as XState: its deferred stop never runs).
  ...(['guard', 'assign'] as const).map((what) => ({
    name: `${what === 'guard' ? 'a guard' : 'an assign'} that throws on a step’s timeout fails the job at once in the step’s state, the step abandoned untold (as XState)`,
    compiles: true,
    input: { limit: 100 },
    retry: { maxAttempts: 3, backoff: { type: 'fixed' as const, delayMs: 20 } },
    machine: (probe: Probe) =>
      stepTimerMachine(probe, { work: 5000, [what === 'guard' ? 'guardThrows' : 'assignThrows']: true }),
    expect: (r: Result) => {
      assert.equal(r.record.status, 'failed');
      assert.equal(r.record.state, 'slow');
      assert.equal(r.record.error?.code, 'ACTION_FAILED');
      assert.equal(r.record.attempts, 1);
      assert.ok(!r.calls.some((c) => c.startsWith('slow aborted')), JSON.stringify(r.calls));
    },
  })),
  {
    name: 'a step with a timeout far beyond the park threshold waits in memory and settles first',
    compiles: true,
    input: { limit: 600_000 },
    machine: (probe) => stepTimerMachine(probe, { work: 400 }),
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      assert.deepEqual(r.record.output, { n: 2, via: 'slow 2' });
      assert.ok(!types(r).includes('parked'), JSON.stringify(r.log));
    },
  },
  {
    name: 'a job that times out while its step with a timeout runs ends timed out in that state',
    compiles: true,
    input: { limit: 5000 },
    timeoutMs: 100,
    retry: { maxAttempts: 1 },
    machine: (probe) => stepTimerMachine(probe, { work: 5000 }),
    expect: (r) => {
      assert.equal(r.record.status, 'failed');
      assert.equal(r.record.state, 'slow');
      assert.equal(r.record.error?.code, 'TIMEOUT');
      assert.deepEqual(r.calls.slice(-1), ['slow aborted:AbortedError']);
    },
  },
  {
    name: 'a step with a timeout restored from its checkpoint (a restart) re-runs its step, and its timer fires as stored',
    compiles: true,
    input: { limit: 1500 },
    machine: (probe) => stepTimerMachine(probe, { work: 60_000 }),
    drive: async (run) => {
      await notedRunning(run);
      await run.restart();
      await run.client.waitForResult(run.id, { timeoutMs: 8000 });
    },
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      assert.deepEqual(r.record.output, { n: 2, via: 'limit' });
      assert.deepEqual(
        r.calls.filter((c) => !c.startsWith('running:')),
        [
          'first:1',
          'slow:{"n":2}:slow:1',
          'slow aborted:AbortedError',
          'slow:{"n":2}:slow:1',
          'slow aborted:AbortError',
          'late:limit',
        ],
      );
      assert.ok(types(r).includes('resumed'), JSON.stringify(r.log));
    },
  },
  {
    name: 'a delay that is not a number on a step state leaves it at once, its step never called',
    compiles: true,
    input: { limit: undefined },
    machine: (probe) => stepTimerMachine(probe, { work: 5000 }),
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      assert.deepEqual(r.record.output, { n: 2, via: 'limit' });
      assert.deepEqual(r.calls, ['first:1', 'late:limit']);
    },
  },
];
