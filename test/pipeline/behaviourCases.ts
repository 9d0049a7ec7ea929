// The pipeline cases behaviour.test.ts runs on both runtimes (compiled and `compile: false`):
// each builds its machine around a Probe (what its steps saw), may drive the job (send, cancel,
// restart the workers), and checks the result both runs must share.

import assert from 'node:assert/strict';
import { assign, setup, type AnyStateMachine } from 'xstate';
import { RateLimitedError, RetryLaterError, defineJob, fanOut, step } from '../../src/index.js';
import type { Client, JobRecord, RetryPolicy, Supervisor } from '../../src/index.js';
import type { AnyDefinition } from '../../src/runtime/registry.js';
import { encodeValue } from '../../src/store/valueCodec.js';
import { gate, untilAborted } from '../support/harness.js';
import { eventually } from '../support/redis.js';

/** What one run's machine did, seen from its steps and input mappers. */
export class Probe {
  /** Steps as they ran: `name@attempt:<input JSON>` unless a case says otherwise. */
  readonly calls: string[] = [];
  /** Per input mapper call: whether it got `self` (XState gives one; a compiled run does not). */
  readonly self: boolean[] = [];
  /** Why each step's signal fired. */
  readonly aborted: string[] = [];
  /** Opened by a case's driver to let a waiting step finish. */
  readonly release = gate();
  /** Set by a case's driver: the deploy that fixed the machine's code has happened. */
  fixed = false;

  /** An input mapper that notes whether it ran on XState. */
  mapper<A, T>(fn: (args: A) => T): (args: A) => T {
    return (args) => {
      this.self.push((args as { self?: unknown }).self !== undefined);
      return fn(args);
    };
  }

  /** A step that reads `input.v` (a TypeError when input is undefined) and fails `fails` times. */
  counting(name: string, fails = 0) {
    let left = fails;
    return step<number, { v: number }>(async ({ input, attempt }) => {
      this.calls.push(`${name}@${attempt}:${JSON.stringify(input)}`);
      const v = input.v;
      if (left-- > 0) throw Object.assign(new Error(`${name} failed`), { code: 'E_FLAKY' });
      return v + 1;
    });
  }
}

/** What a driver may use while its job runs. */
export interface Run {
  id: string;
  client: Client;
  probe: Probe;
  supervisor: () => Supervisor;
  /** Stops every worker and starts a fresh supervisor with the same definitions. */
  restart: () => Promise<void>;
}

/** The result both runtimes must produce, normalised: no log times, stored times and the job
 * id replaced. */
export interface Result {
  record: {
    status: string;
    state: unknown;
    output: unknown;
    attempts: number;
    error: { name: string; message: string; code?: string; stack?: string } | null;
    progress: unknown;
    snapshot: unknown;
  };
  log: Record<string, unknown>[];
  calls: string[];
  deadLettered: boolean;
}

export interface Case {
  name: string;
  /** Whether the machine compiles: its `compile: true` run is then checked to have run compiled. */
  compiles: boolean;
  machine(probe: Probe): AnyStateMachine;
  input?: unknown;
  retry?: RetryPolicy;
  timeoutMs?: number;
  /** Other definitions the case needs (a fan-out's children). */
  jobs?: AnyDefinition[];
  /** Drives the job to its end; by default its result is awaited. */
  drive?(run: Run): Promise<void>;
  expect(result: Result): void;
}

const retryFast = (maxAttempts: number): RetryPolicy => ({
  maxAttempts,
  backoff: { type: 'fixed', delayMs: 20 },
});

const types = (r: Result) => r.log.map((e) => e.type);

/** A chain with everything the compiler supports: context from input, input mappers, assigns
 * (object, function, named with params), guards (inline, named with params), final outputs. */
function chainMachine(probe: Probe) {
  return setup({
    types: { input: {} as { n: number }, context: {} as { n: number; total: number; path: string[] } },
    actors: {
      double: step<number, number>(async ({ input, idempotencyKey }) => {
        probe.calls.push(`double:${idempotencyKey.split(':').slice(1).join(':')}`);
        return input * 2;
      }),
      add: step<number, { a: number; b: number }>(async ({ input }) => {
        probe.calls.push('add');
        return input.a + input.b;
      }),
    },
    guards: {
      atLeast: ({ event }, params: { min: number }) =>
        (event as unknown as { output: number }).output >= params.min,
    },
    actions: {
      note: assign(({ context }, params: { tag: string }) => ({ path: [...context.path, params.tag] })),
    },
  }).createMachine({
    id: 'chain',
    initial: 'doubling',
    context: ({ input }) => ({ n: input.n, total: 0, path: [] }),
    states: {
      doubling: {
        invoke: {
          id: 'd1',
          src: 'double',
          input: probe.mapper(({ context }) => context.n),
          onDone: [
            {
              target: 'big',
              guard: { type: 'atLeast', params: { min: 10 } },
              actions: [
                assign({ total: ({ event }) => event.output }),
                { type: 'note', params: { tag: 'big' } },
              ],
            },
            { target: 'small', actions: assign(({ event }) => ({ total: event.output, path: ['small'] })) },
          ],
        },
      },
      big: {
        invoke: {
          id: 'a1',
          src: 'add',
          input: ({ context }) => ({ a: context.total, b: 1 }),
          onDone: { target: 'end', actions: assign({ total: ({ event }) => event.output }) },
        },
      },
      small: {
        invoke: {
          id: 'd2',
          src: 'double',
          input: ({ context }) => context.total,
          onDone: [
            {
              target: 'end',
              guard: ({ event }) => event.output > -1,
              actions: assign({ total: ({ event }) => event.output }),
            },
            { target: 'end' },
          ],
        },
      },
      end: { type: 'final', output: ({ context }) => ({ last: context.path.at(-1) ?? null }) },
    },
    output: ({ context, event }) => ({ total: context.total, path: context.path, final: event.output }),
  });
}

/** Three steps passing a number along (the first state is named `loading`, as a user might:
 * it is no lifecycle status); step `failing` fails `fails` times. */
function threeSteps(probe: Probe, failing: 'a' | 'b' | 'c', fails: number) {
  return setup({
    types: { context: {} as { v: number } },
    actors: {
      a: probe.counting('a', failing === 'a' ? fails : 0),
      b: probe.counting('b', failing === 'b' ? fails : 0),
      c: probe.counting('c', failing === 'c' ? fails : 0),
    },
  }).createMachine({
    initial: 'loading',
    context: { v: 1 },
    states: {
      loading: {
        invoke: {
          id: 'a',
          src: 'a',
          input: probe.mapper(({ context }: { context: { v: number } }) => ({ v: context.v })),
          onDone: { target: 's2', actions: assign({ v: ({ event }) => event.output }) },
        },
      },
      s2: {
        invoke: {
          id: 'b',
          src: 'b',
          input: ({ context }) => ({ v: context.v }),
          onDone: { target: 's3', actions: assign({ v: ({ event }) => event.output }) },
        },
      },
      s3: {
        invoke: {
          id: 'c',
          src: 'c',
          input: ({ context }) => ({ v: context.v }),
          onDone: { target: 'end', actions: assign({ v: ({ event }) => event.output }) },
        },
      },
      end: { type: 'final' },
    },
    output: ({ context }) => context.v,
  });
}

/**
 * A step that throws `wait()` twice, then returns its call count: the job ends done with that
 * count on its one attempt, its log holding the two `entry` events (RetryLaterError and
 * RateLimitedError both wait without using an attempt).
 */
function waitsWithoutAttempt(name: string, wait: () => Error, entry: string): Case {
  return {
    name,
    compiles: true,
    machine: (probe) => {
      let calls = 0;
      return setup({
        actors: {
          limited: step(async () => {
            if (++calls < 3) throw wait();
            return calls;
          }),
        },
      }).createMachine({
        initial: 'a',
        context: { n: 0 },
        states: {
          a: {
            invoke: {
              id: 'limited',
              src: 'limited',
              input: probe.mapper(() => undefined),
              onDone: { target: 'b', actions: assign({ n: ({ event }) => event.output }) },
            },
          },
          b: { type: 'final' },
        },
        output: ({ context }) => context.n,
      });
    },
    retry: { maxAttempts: 1 },
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      assert.equal(r.record.output, 3);
      assert.equal(r.record.attempts, 1);
      assert.equal(types(r).filter((t) => t === entry).length, 2);
    },
  };
}

export const cases: Case[] = [
  {
    name: 'guards, assigns and outputs: the big branch',
    compiles: true,
    machine: chainMachine,
    input: { n: 7 },
    expect: (r) => {
      assert.deepEqual(r.record.output, { total: 15, path: ['big'], final: { last: 'big' } });
      assert.deepEqual(r.calls, ['double:d1:1', 'add']);
    },
  },
  {
    name: 'guards, assigns and outputs: the small branch',
    compiles: true,
    machine: chainMachine,
    input: { n: 2 },
    expect: (r) => assert.deepEqual(r.record.output, { total: 8, path: ['small'], final: { last: 'small' } }),
  },
  {
    name: 'a failed step is retried from that step with its input; its error stays in the log, not on the done record',
    compiles: true,
    machine: (p) => threeSteps(p, 'b', 2),
    retry: retryFast(3),
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      assert.equal(r.record.output, 4);
      assert.equal(r.record.attempts, 3);
      assert.deepEqual(r.calls, ['a@1:{"v":1}', 'b@1:{"v":2}', 'b@2:{"v":2}', 'b@3:{"v":2}', 'c@3:{"v":3}']);
      assert.equal(r.record.error, null, 'a done job has no error');
      const retried = r.log.filter((e) => e.type === 'retry-scheduled') as {
        error?: { message?: string; code?: string };
      }[];
      assert.deepEqual(
        retried.map((e) => [e.error?.message, e.error?.code]),
        [
          ['b failed', 'E_FLAKY'],
          ['b failed', 'E_FLAKY'],
        ],
      );
    },
  },
  {
    name: 'a failed first step is retried with its input',
    compiles: true,
    machine: (p) => threeSteps(p, 'a', 1),
    retry: retryFast(2),
    expect: (r) => {
      assert.equal(r.record.output, 4);
      assert.deepEqual(r.calls.slice(0, 2), ['a@1:{"v":1}', 'a@2:{"v":1}']);
    },
  },
  {
    name: 'a step error onError handles takes its first enabled transition',
    compiles: true,
    machine: (probe) => {
      let failures = 1;
      return setup({
        actors: {
          one: step(async () => void probe.calls.push('one')),
          flaky: step(async ({ attempt }) => {
            probe.calls.push(`flaky@${attempt}`);
            if (failures-- > 0) throw Object.assign(new Error('flaky step'), { code: 'E_FLAKY' });
            return 'ok';
          }),
        },
      }).createMachine({
        initial: 's1',
        context: { recovered: false },
        states: {
          s1: { invoke: { id: 'one', src: 'one', input: probe.mapper(() => undefined), onDone: 's2' } },
          s2: {
            invoke: {
              id: 'flaky',
              src: 'flaky',
              onDone: 'end',
              onError: [
                { target: 'end', guard: ({ event }) => (event.error as Error).message === 'nope' },
                { target: 'recovered', actions: assign({ recovered: true }) },
              ],
            },
          },
          recovered: { type: 'final' },
          end: { type: 'final' },
        },
        output: ({ context }) => context,
      });
    },
    retry: retryFast(2),
    expect: (r) => {
      assert.deepEqual(r.record.output, { recovered: true });
      assert.equal(r.record.attempts, 1);
    },
  },
  {
    name: 'an assign that throws fails the job at once (ACTION_FAILED naming the state and event), in its state',
    compiles: true,
    machine: (probe) =>
      setup({ actors: { work: step(async () => void probe.calls.push('work')) } }).createMachine({
        initial: 'a',
        context: { x: 0 },
        states: {
          a: {
            invoke: {
              id: 'w',
              src: 'work',
              input: probe.mapper(() => undefined),
              onDone: {
                target: 'b',
                actions: assign(() => {
                  throw new TypeError('assign blew up');
                }),
              },
            },
          },
          b: { type: 'final' },
        },
      }),
    retry: retryFast(3),
    expect: (r) => {
      assert.equal(r.record.status, 'failed');
      assert.equal(r.record.attempts, 1, 'not retried: the same event would throw again');
      assert.deepEqual(r.calls, ['work']);
      assert.equal(r.record.state, 'a', "the user's state, not 'failed'");
      assert.equal(r.record.error?.code, 'ACTION_FAILED');
      assert.equal(r.record.error?.name, 'MachineActionError');
      assert.equal(
        r.record.error?.message,
        "machine code threw in state 'a' on event 'xstate.done.actor.w': TypeError: assign blew up",
      );
      assert.ok(r.deadLettered);
      assert.equal(types(r).filter((t) => t === 'retry-scheduled').length, 0);
    },
  },
  {
    name: 'a job its machine’s code failed resumes at that state when its dead letter is redriven after the fix',
    compiles: true,
    machine: (probe) =>
      setup({
        actors: {
          one: step(async () => void probe.calls.push('one')),
          two: step(async () => {
            probe.calls.push('two');
            return 2;
          }),
        },
      }).createMachine({
        initial: 's1',
        context: { got: 0 },
        states: {
          s1: { invoke: { id: 'one', src: 'one', input: probe.mapper(() => undefined), onDone: 's2' } },
          s2: {
            invoke: {
              id: 'two',
              src: 'two',
              onDone: {
                target: 'end',
                actions: assign(({ event }) => {
                  if (!probe.fixed) throw new Error('bug in the assign');
                  return { got: event.output };
                }),
              },
            },
          },
          end: { type: 'final' },
        },
        output: ({ context }) => context.got,
      }),
    retry: retryFast(3),
    drive: async ({ id, client, probe }) => {
      const failed = await client.waitForResult(id, { timeoutMs: 5000 });
      assert.deepEqual([failed.status, failed.state, failed.error?.code], ['failed', 's2', 'ACTION_FAILED']);
      probe.fixed = true; // the fixed code is deployed
      await client.retryDeadLetter(id);
      await client.waitForResult(id, { timeoutMs: 5000 });
    },
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      assert.equal(r.record.output, 2);
      assert.deepEqual(r.calls, ['one', 'two', 'two'], 'step one did not run again');
      assert.ok(types(r).includes('redriven'));
    },
  },
  {
    name: 'a guard that throws on a step error fails the job at once, in its state',
    compiles: true,
    machine: (probe) =>
      setup({
        actors: {
          one: step(async () => void probe.calls.push('one')),
          bad: step(async () => {
            probe.calls.push('bad');
            throw new Error('service down');
          }),
        },
      }).createMachine({
        initial: 's1',
        states: {
          s1: { invoke: { id: 'one', src: 'one', input: probe.mapper(() => undefined), onDone: 's2' } },
          s2: {
            invoke: {
              id: 'bad',
              src: 'bad',
              onDone: 'end',
              onError: {
                target: 'end',
                guard: ({ event }) => (event.error as { missing: { deep: boolean } }).missing.deep,
              },
            },
          },
          end: { type: 'final' },
        },
      }),
    retry: retryFast(3),
    expect: (r) => {
      assert.equal(r.record.status, 'failed');
      assert.equal(r.record.attempts, 1);
      assert.deepEqual(r.calls, ['one', 'bad']);
      assert.equal(r.record.state, 's2');
      assert.equal(r.record.error?.code, 'ACTION_FAILED');
      // XState reports a guard that threw with its own Error (the compiled runtime says the same).
      assert.equal(
        r.record.error?.message,
        "machine code threw in state 's2' on event 'xstate.error.actor.bad': Error: Unable to evaluate guard " +
          "in transition for event 'xstate.error.actor.bad' in state node '(machine).s2':\n" +
          "Cannot read properties of undefined (reading 'deep')",
      );
    },
  },
  {
    name: 'a step that rejects with no onError follows the retry policy, then fails in its state',
    compiles: true,
    machine: (probe) =>
      setup({
        actors: {
          down: step(async ({ attempt }) => {
            probe.calls.push(`down@${attempt}`);
            throw Object.assign(new Error('service down'), { code: 'E_DOWN' });
          }),
        },
      }).createMachine({
        initial: 'calling',
        states: {
          calling: {
            invoke: { id: 'down', src: 'down', input: probe.mapper(() => undefined), onDone: 'end' },
          },
          end: { type: 'final' },
        },
      }),
    retry: retryFast(2),
    expect: (r) => {
      assert.equal(r.record.status, 'failed');
      assert.equal(r.record.attempts, 2);
      assert.deepEqual(r.calls, ['down@1', 'down@2']);
      assert.equal(r.record.state, 'calling', "the user's state, not 'failed'");
      assert.equal(r.record.error?.code, 'E_DOWN');
    },
  },
  {
    name: 'the last attempt fails with the error as {name, message, code, stack} and a dead letter',
    compiles: true,
    machine: (probe) =>
      setup({
        actors: {
          boom: step(async () => Promise.reject(Object.assign(new TypeError('bad data'), { code: 'E_BAD' }))),
        },
      }).createMachine({
        initial: 'a',
        states: {
          a: { invoke: { id: 'boom', src: 'boom', input: probe.mapper(() => undefined), onDone: 'end' } },
          end: { type: 'final' },
        },
      }),
    retry: { maxAttempts: 1 },
    expect: (r) => {
      assert.equal(r.record.status, 'failed');
      assert.deepEqual(r.record.error, {
        name: 'TypeError',
        message: 'bad data',
        code: 'E_BAD',
        stack: 'TypeError: bad data',
      });
      assert.ok(r.deadLettered);
    },
  },
  waitsWithoutAttempt(
    'a step asks to retry later without using an attempt',
    () => new RetryLaterError(50),
    'retry-later',
  ),
  waitsWithoutAttempt(
    'a step that hits a rate limit (RateLimitedError) waits without using an attempt',
    () => new RateLimitedError(20),
    'rate-limited',
  ),
  {
    name: 'step progress is stored on the record and in the audit log',
    compiles: true,
    machine: (probe) =>
      setup({
        actors: {
          long: step(async ({ progress }) => {
            progress({ done: 3, total: 10 });
            await probe.release.promise;
            return 1;
          }),
        },
      }).createMachine({
        initial: 'a',
        states: {
          a: { invoke: { id: 'long', src: 'long', input: probe.mapper(() => undefined), onDone: 'b' } },
          b: { type: 'final' },
        },
      }),
    drive: async ({ id, client, probe }) => {
      await eventually(
        async () => JSON.stringify((await client.get(id))?.progress) === '{"done":3,"total":10}',
      );
      probe.release.open();
      await client.waitForResult(id, { timeoutMs: 5000 });
    },
    expect: (r) => {
      assert.deepEqual(r.record.progress, { done: 3, total: 10 });
      assert.ok(types(r).includes('progress'), types(r).join());
    },
  },
  {
    name: "a step's args are own enumerable properties: a spread copy keeps them all, signal and progress too",
    compiles: true,
    machine: (probe) =>
      setup({
        actors: {
          look: step(async (args) => {
            const copy = { ...args };
            probe.calls.push(
              [
                Object.keys(args).sort().join(','),
                copy.signal instanceof AbortSignal && !copy.signal.aborted,
                typeof copy.progress,
                copy.idempotencyKey.split(':').slice(1).join(':'),
                copy.attempt,
                JSON.stringify(copy.input),
              ].join(' '),
            );
            return 1;
          }),
        },
      }).createMachine({
        initial: 'a',
        states: {
          a: { invoke: { id: 'look', src: 'look', input: probe.mapper(() => ({ v: 1 })), onDone: 'end' } },
          end: { type: 'final' },
        },
      }),
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      assert.deepEqual(r.calls, [
        'attempt,idempotencyKey,input,jobId,progress,signal true function look:1 1 {"v":1}',
      ]);
    },
  },
  {
    name: 'a running step ends on timeout through its signal',
    compiles: true,
    machine: (probe) =>
      setup({
        actors: {
          quick: step(async () => 'q'),
          hang: step(async ({ signal }) => {
            signal.addEventListener('abort', () =>
              probe.aborted.push(String((signal.reason as { reason?: string }).reason)),
            );
            return untilAborted(signal);
          }),
        },
      }).createMachine({
        initial: 'a',
        states: {
          a: { invoke: { id: 'quick', src: 'quick', input: probe.mapper(() => undefined), onDone: 'b' } },
          b: { invoke: { id: 'hang', src: 'hang', onDone: 'end' } },
          end: { type: 'final' },
        },
      }),
    timeoutMs: 300,
    retry: { maxAttempts: 1 },
    expect: (r) => {
      assert.equal(r.record.status, 'failed');
      assert.equal(r.record.error?.code, 'TIMEOUT');
      assert.equal(r.record.state, 'b');
    },
  },
  {
    name: 'a running step ends on cancel through its signal',
    compiles: true,
    machine: (probe) =>
      setup({
        actors: {
          quick: step(async () => 'q'),
          hang: step(async ({ signal }) => {
            signal.addEventListener('abort', () =>
              probe.aborted.push(String((signal.reason as { reason?: string }).reason)),
            );
            return untilAborted(signal);
          }),
        },
      }).createMachine({
        initial: 'a',
        states: {
          a: { invoke: { id: 'quick', src: 'quick', input: probe.mapper(() => undefined), onDone: 'b' } },
          b: { invoke: { id: 'hang', src: 'hang', onDone: 'end' } },
          end: { type: 'final' },
        },
      }),
    drive: async ({ id, client, probe }) => {
      await eventually(async () => (await client.get(id))?.state === 'b');
      assert.equal(await client.cancel(id), true);
      await client.waitForResult(id, { timeoutMs: 5000 });
      await eventually(() => probe.aborted.length > 0);
      assert.deepEqual(probe.aborted, ['cancel']);
    },
    expect: (r) => assert.equal(r.record.status, 'cancelled'),
  },
  {
    name: 'an event sent to a running step state that does not take it is logged as ignored',
    compiles: true,
    machine: (probe) =>
      setup({ actors: { wait: step(async () => probe.release.promise) } }).createMachine({
        initial: 'a',
        states: {
          a: { invoke: { id: 'w', src: 'wait', input: probe.mapper(() => undefined), onDone: 'end' } },
          end: { type: 'final' },
        },
      }),
    drive: async ({ id, client, probe }) => {
      await eventually(async () => (await client.get(id))?.state === 'a');
      await client.send(id, { type: 'PING' });
      await eventually(async () => (await client.events(id)).some((e) => e.type === 'event-ignored'));
      probe.release.open();
      await client.waitForResult(id, { timeoutMs: 5000 });
    },
    expect: (r) =>
      assert.ok(
        r.log.some(
          (e) =>
            JSON.stringify(e) ===
            `{"type":"event-ignored","event":"PING","state":"a","reason":"no transition for 'PING' in the active states"}`,
        ),
        JSON.stringify(r.log),
      ),
  },
  {
    name: 'events sent in a retry backoff are offered when it runs again; those after one that errored the machine stay unoffered, and the log says so',
    compiles: true,
    machine: (probe) => {
      let fails = 1;
      return setup({
        actors: {
          flaky: step(async ({ attempt }) => {
            probe.calls.push(`flaky@${attempt}`);
            if (fails-- > 0) throw new Error('flaky');
            return probe.release.promise;
          }),
        },
      }).createMachine({
        initial: 'a',
        context: { notes: 0 },
        states: {
          a: {
            invoke: { id: 'f', src: 'flaky', input: probe.mapper(() => ({})), onDone: 'end' },
            on: {
              NOTE: { actions: assign({ notes: ({ context }) => context.notes + 1 }) },
              BAD: {
                actions: assign(() => {
                  throw new Error('bad event');
                }),
              },
            },
          },
          end: { type: 'final' },
        },
      });
    },
    retry: { maxAttempts: 3, backoff: { type: 'fixed', delayMs: 300 } },
    drive: async ({ id, client }) => {
      await eventually(async () => {
        const rec = await client.get(id);
        return rec?.status === 'queued' && rec.attempts === 2;
      });
      // In its backoff: read all at once by the next attempt.
      await client.send(id, { type: 'NOTE' });
      await client.send(id, { type: 'BAD' });
      await client.send(id, { type: 'NOTE' });
      await client.waitForResult(id, { timeoutMs: 5000 });
    },
    expect: (r) => {
      assert.equal(r.record.status, 'failed');
      assert.equal(r.record.error?.code, 'ACTION_FAILED');
      assert.equal(r.record.attempts, 2);
      const events = r.log.filter((e) => String(e.type).startsWith('event')).map((e) => JSON.stringify(e));
      assert.deepEqual(events, [
        '{"type":"event-received","event":"NOTE"}',
        '{"type":"event-received","event":"BAD"}',
        '{"type":"event-received","event":"NOTE"}',
        '{"type":"event","event":"NOTE"}',
        '{"type":"event","event":"BAD"}',
        '{"type":"event-ignored","event":"NOTE","state":"a","reason":"the machine errored taking an earlier event (status \'error\'): not offered in this attempt; a retry offers it again"}',
      ]);
    },
  },
  {
    name: 'a failed step in a nested state is retried with its input',
    compiles: false,
    machine: (probe) =>
      setup({ actors: { a: probe.counting('a'), b: probe.counting('b', 1) } }).createMachine({
        id: 'n',
        initial: 'outer',
        context: { v: 1 },
        states: {
          outer: {
            initial: 'one',
            states: {
              one: {
                invoke: {
                  id: 'a',
                  src: 'a',
                  input: ({ context }) => ({ v: context.v }),
                  onDone: { target: 'two', actions: assign({ v: ({ event }) => event.output }) },
                },
              },
              two: {
                invoke: {
                  id: 'b',
                  src: 'b',
                  input: ({ context }) => ({ v: context.v }),
                  onDone: { target: 'fin', actions: assign({ v: ({ event }) => event.output }) },
                },
              },
              fin: { type: 'final' },
            },
            onDone: 'end',
          },
          end: { type: 'final' },
        },
        output: ({ context }) => context.v,
      }),
    retry: retryFast(2),
    expect: (r) => {
      assert.equal(r.record.output, 3);
      assert.deepEqual(r.calls, ['a@1:{"v":1}', 'b@1:{"v":2}', 'b@2:{"v":2}']);
    },
  },
  {
    name: 'a failed step in one parallel region is retried with its input; the finished region stays done',
    compiles: false,
    machine: (probe) =>
      setup({ actors: { a: probe.counting('a'), b: probe.counting('b', 1) } }).createMachine({
        type: 'parallel',
        context: { a: 0, b: 0 },
        states: {
          L: {
            initial: 'run',
            states: {
              run: {
                invoke: {
                  id: 'a',
                  src: 'a',
                  input: () => ({ v: 10 }),
                  onDone: { target: 'ok', actions: assign({ a: ({ event }) => event.output }) },
                },
              },
              ok: { type: 'final' },
            },
          },
          R: {
            initial: 'run',
            states: {
              run: {
                invoke: {
                  id: 'b',
                  src: 'b',
                  input: () => ({ v: 20 }),
                  onDone: { target: 'ok', actions: assign({ b: ({ event }) => event.output }) },
                },
              },
              ok: { type: 'final' },
            },
          },
        },
        output: ({ context }) => context,
      }),
    retry: retryFast(2),
    expect: (r) => {
      assert.deepEqual(r.record.output, { a: 11, b: 21 });
      assert.deepEqual(r.calls, ['a@1:{"v":10}', 'b@1:{"v":20}', 'b@2:{"v":20}']);
    },
  },
  {
    name: 'a step still running in another region when the machine errors runs again on the retry',
    compiles: false,
    machine: (probe) => {
      // `a` is in flight when `b` fails: the error stops it, and the retry must start it again.
      let fails = 1;
      const bFailed = gate();
      const a = step<number, { v: number }>(async ({ input, attempt, signal }) => {
        probe.calls.push(`a@${attempt}:${JSON.stringify(input)}`);
        if (attempt === 1) await Promise.race([bFailed.promise, untilAborted(signal)]);
        return input.v + 1;
      });
      const b = step<number, { v: number }>(async ({ input, attempt }) => {
        await new Promise((r) => setTimeout(r, 20)); // a has started
        probe.calls.push(`b@${attempt}:${JSON.stringify(input)}`);
        if (fails-- > 0) {
          setTimeout(() => bFailed.open(), 200);
          throw new Error('b failed');
        }
        return input.v + 1;
      });
      return setup({ actors: { a, b } }).createMachine({
        type: 'parallel',
        context: { a: 0, b: 0 },
        states: {
          L: {
            initial: 'run',
            states: {
              run: {
                invoke: {
                  id: 'a',
                  src: 'a',
                  input: () => ({ v: 10 }),
                  onDone: { target: 'ok', actions: assign({ a: ({ event }) => event.output }) },
                },
              },
              ok: { type: 'final' },
            },
          },
          R: {
            initial: 'run',
            states: {
              run: {
                invoke: {
                  id: 'b',
                  src: 'b',
                  input: () => ({ v: 20 }),
                  onDone: { target: 'ok', actions: assign({ b: ({ event }) => event.output }) },
                },
              },
              ok: { type: 'final' },
            },
          },
        },
        output: ({ context }) => context,
      });
    },
    retry: retryFast(2),
    expect: (r) => {
      assert.equal(r.record.status, 'done', 'the job ends (it used to park for ever)');
      assert.deepEqual(r.record.output, { a: 11, b: 21 });
      assert.deepEqual(r.calls, ['a@1:{"v":10}', 'b@1:{"v":20}', 'a@2:{"v":10}', 'b@2:{"v":20}']);
    },
  },
  {
    name: 'a failed step inside an invoked child machine is retried with its input',
    compiles: false,
    machine: (probe) => {
      const child = setup({ actors: { b: probe.counting('b', 1) } }).createMachine({
        initial: 'run',
        context: ({ input }: { input: { v: number } }) => ({ v: input.v }),
        states: {
          run: {
            invoke: {
              id: 'b',
              src: 'b',
              input: ({ context }) => ({ v: context.v }),
              onDone: { target: 'ok', actions: assign({ v: ({ event }) => event.output }) },
            },
          },
          ok: { type: 'final' },
        },
        output: ({ context }) => context.v,
      });
      return setup({ actors: { a: probe.counting('a'), child } }).createMachine({
        initial: 's1',
        context: { v: 1 },
        states: {
          s1: {
            invoke: {
              id: 'a',
              src: 'a',
              input: ({ context }) => ({ v: context.v }),
              onDone: { target: 's2', actions: assign({ v: ({ event }) => event.output }) },
            },
          },
          s2: {
            invoke: {
              id: 'kid',
              src: 'child',
              input: ({ context }) => ({ v: context.v }),
              onDone: { target: 'end', actions: assign({ v: ({ event }) => event.output as number }) },
            },
          },
          end: { type: 'final' },
        },
        output: ({ context }) => context.v,
      });
    },
    retry: retryFast(2),
    expect: (r) => {
      assert.equal(r.record.status, 'done', 'the job ends (it used to park for ever)');
      assert.equal(r.record.output, 3);
      assert.deepEqual(r.calls, ['a@1:{"v":1}', 'b@1:{"v":2}', 'b@2:{"v":2}']);
    },
  },
  {
    name: 'a retried step gets its own input when a step of another machine has the same invoke id',
    compiles: false,
    machine: (probe) => {
      // The child's `w` starts first and fails after the root's `w` started with another input.
      let fails = 1;
      const inner = step<number, { v: number }>(async ({ input, attempt }) => {
        probe.calls.push(`inner@${attempt}:${JSON.stringify(input)}`);
        const v = input.v;
        if (fails-- > 0) {
          await new Promise((r) => setTimeout(r, 50));
          throw new Error('inner failed');
        }
        return v;
      });
      const child = setup({ actors: { w: inner } }).createMachine({
        initial: 'run',
        states: {
          run: { invoke: { id: 'w', src: 'w', input: () => ({ v: 100 }), onDone: 'ok' } },
          ok: { type: 'final' },
        },
      });
      return setup({ actors: { w: probe.counting('outer'), child, pre: step(async () => 0) } }).createMachine(
        {
          type: 'parallel',
          states: {
            L: {
              initial: 'run',
              states: { run: { invoke: { id: 'kid', src: 'child', onDone: 'ok' } }, ok: { type: 'final' } },
            },
            R: {
              initial: 'pre',
              states: {
                pre: { invoke: { id: 'pre', src: 'pre', onDone: 'run' } },
                run: { invoke: { id: 'w', src: 'w', input: () => ({ v: 1 }), onDone: 'ok' } },
                ok: { type: 'final' },
              },
            },
          },
        },
      );
    },
    retry: retryFast(2),
    expect: (r) => {
      assert.equal(r.record.status, 'done');
      assert.deepEqual(
        r.calls.filter((c) => c.startsWith('inner')),
        ['inner@1:{"v":100}', 'inner@2:{"v":100}'],
      );
    },
  },
  {
    name: 'nested and parallel states and an invoked child machine are checkpointed; the child’s timer survives a restart',
    compiles: false,
    machine: (probe) => {
      const child = setup({}).createMachine({
        id: 'child',
        initial: 'waiting',
        states: { waiting: { after: { 600: 'finished' } }, finished: { type: 'final' } },
        output: () => 'child-done',
      });
      return setup({ actors: { child, quick: step(async () => 'q') } }).createMachine({
        id: 'parent',
        type: 'parallel',
        context: { childOut: null as string | null, quick: null as string | null },
        states: {
          left: {
            initial: 'run',
            states: {
              run: {
                invoke: {
                  id: 'kid',
                  src: 'child',
                  onDone: {
                    target: 'ok',
                    actions: assign({ childOut: ({ event }) => event.output as string }),
                  },
                },
              },
              ok: { type: 'final' },
            },
          },
          right: {
            initial: 'outer',
            states: {
              outer: {
                initial: 'inner',
                states: {
                  inner: {
                    invoke: {
                      id: 'quick',
                      src: 'quick',
                      input: probe.mapper(() => undefined),
                      onDone: {
                        target: 'innerDone',
                        actions: assign({ quick: ({ event }) => event.output }),
                      },
                    },
                  },
                  innerDone: { type: 'final' },
                },
                onDone: 'ok',
              },
              ok: { type: 'final' },
            },
          },
        },
        output: ({ context }) => context,
      });
    },
    drive: async ({ id, client, restart }) => {
      await eventually(async () => (await client.get(id))?.status === 'waiting');
      const parked = await client.get(id);
      assert.deepEqual(parked!.state, { left: 'run', right: 'ok' });
      const snap = parked!.snapshot as {
        w: { children: Record<string, { snapshot: { value: string } }> };
        t: { source: string }[];
      };
      assert.equal(snap.w.children.kid!.snapshot.value, 'waiting');
      assert.equal(snap.t[0]!.source, 'kid');
      await restart(); // every worker stops while the child's timer is pending
      await client.waitForResult(id, { timeoutMs: 5000 });
    },
    expect: (r) => assert.deepEqual(r.record.output, { childOut: 'child-done', quick: 'q' }),
  },
  {
    name: 'a change of an invoked child machine is persisted when its parent does not change',
    compiles: false,
    machine: () => {
      const child = setup({}).createMachine({
        id: 'kid',
        initial: 'one',
        states: { one: { after: { 300: 'two' } }, two: { on: { NEVER: 'one' } } },
      });
      return setup({ actors: { child } }).createMachine({
        initial: 'run',
        states: { run: { invoke: { id: 'kid', src: 'child' } } },
      });
    },
    drive: async ({ id, client, supervisor }) => {
      await eventually(async () => {
        const rec = await client.get(id);
        const snap = rec?.snapshot as {
          w?: { children?: { kid?: { snapshot?: { value?: string } } } };
        } | null;
        return rec?.status === 'waiting' && snap?.w?.children?.kid?.snapshot?.value === 'two';
      }, 4000);
      assert.equal(supervisor().inFlight, 0);
      await client.cancel(id);
      await client.waitForResult(id, { timeoutMs: 5000 });
    },
    expect: (r) => {
      assert.equal(r.record.status, 'cancelled');
      assert.ok(types(r).includes('parked'));
    },
  },
  {
    name: 'a fan-out collects its child jobs’ outputs in input order',
    compiles: false,
    jobs: [defineJob({ name: 'doubleIt', work: async ({ input }: { input: number }) => input * 2 })],
    machine: () =>
      setup({ actors: { fanOut } }).createMachine({
        initial: 'fan',
        context: { out: [] as unknown[] },
        states: {
          fan: {
            invoke: {
              id: 'fan',
              src: 'fanOut',
              input: { jobs: [1, 2, 3].map((n) => ({ machine: 'doubleIt', input: n })) },
              onDone: { target: 'end', actions: assign({ out: ({ event }) => event.output }) },
            },
          },
          end: { type: 'final' },
        },
        output: ({ context }) => context.out,
      }),
    expect: (r) => assert.deepEqual(r.record.output, [2, 4, 6]),
  },
];

/** A stack's first line: the frames below it name each runtime's own functions. */
const firstLine = <T>(stack: T): T => (typeof stack === 'string' ? (stack.split('\n')[0] as T) : stack);

/** Runs a record through the normalisation Result describes. */
export function normalised(rec: JobRecord, log: Record<string, unknown>[]): Pick<Result, 'record' | 'log'> {
  const TIMES = new Set(['dueAt', 'wakeAt']);
  const norm = <T>(value: T): T =>
    value === undefined
      ? value
      : // The stored form (a Date in the codec's envelope): both runs must also agree on types.
        (JSON.parse(encodeValue(value, 'value').replaceAll(rec.id, '<id>'), (k, v: unknown) =>
          TIMES.has(k) && typeof v === 'number' ? '<time>' : k === 'stack' ? firstLine(v) : v,
        ) as T);
  return {
    record: {
      status: rec.status,
      state: rec.state,
      output: norm(rec.output),
      attempts: rec.attempts,
      error: rec.error && {
        name: rec.error.name,
        message: rec.error.message,
        ...(rec.error.code !== undefined ? { code: rec.error.code } : {}),
        ...(rec.error.stack !== undefined ? { stack: firstLine(rec.error.stack) } : {}),
      },
      progress: norm(rec.progress),
      snapshot: norm(rec.snapshot),
    },
    log: log.map(({ at: _at, ...entry }) => norm(entry)),
  };
}
