// The compiled step runtime (compileSteps.ts, runCompiledPipeline.ts) must be indistinguishable
// from the XState runtime in what it stores: every machine here runs twice, compiled and with
// `compile: false`, and the two records (status, state, output, error, snapshot, audit log) must
// be equal. Each compiled run is also checked to have run compiled (an input mapper sees no
// `self` there), so the comparison cannot pass by both running on XState.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assign, setup, type AnyStateMachine } from 'xstate';
import { definePipeline, explainNotCompiled, step, type SendOptions } from '../../src/index.js';
import type { AnyDefinition } from '../../src/runtime/registry.js';
import { Harness, gate, untilAborted } from '../support/harness.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';

type Calls = string[];

/** A chain with everything the compiler supports: context from input, input mappers, assigns
 * (object, function, named with params), guards (inline, named with params), final outputs. */
function chainMachine(calls: Calls, selfSeen: boolean[]) {
  return setup({
    types: { input: {} as { n: number }, context: {} as { n: number; total: number; path: string[] } },
    actors: {
      double: step<number, number>(async ({ input, idempotencyKey }) => {
        calls.push(`double:${idempotencyKey.split(':').slice(1).join(':')}`);
        return input * 2;
      }),
      add: step<number, { a: number; b: number }>(async ({ input }) => {
        calls.push('add');
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
          input: ({ context, self }) => {
            selfSeen.push(self !== undefined);
            return context.n;
          },
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

/** A step that fails: handled by a guarded onError, or (no handler) retried from that step. */
function failingMachine(calls: Calls, selfSeen: boolean[], handle: boolean) {
  let failures = 1;
  return setup({
    actors: {
      one: step(async () => void calls.push('one')),
      flaky: step(async ({ attempt }) => {
        calls.push(`flaky@${attempt}`);
        if (failures-- > 0) throw Object.assign(new Error('flaky step'), { code: 'E_FLAKY' });
        return 'ok';
      }),
    },
  }).createMachine({
    initial: 's1',
    context: { recovered: false },
    states: {
      s1: {
        invoke: {
          id: 'one',
          src: 'one',
          input: ({ self }: { self: unknown }) => void selfSeen.push(self !== undefined),
          onDone: 's2',
        },
      },
      s2: {
        invoke: {
          id: 'flaky',
          src: 'flaky',
          onDone: 'end',
          ...(handle
            ? {
                onError: [
                  { target: 'end', guard: ({ event }) => (event.error as Error).message === 'nope' },
                  { target: 'recovered', actions: assign({ recovered: true }) },
                ],
              }
            : {}),
        },
      },
      recovered: { type: 'final' },
      end: { type: 'final' },
    },
    output: ({ context }) => context,
  });
}

/** An assign that throws: the machine errors, and the retry re-runs that state's step. */
function throwingAssignMachine(calls: Calls, selfSeen: boolean[]) {
  let throws = 1;
  return setup({ actors: { work: step(async () => void calls.push('work')) } }).createMachine({
    initial: 'a',
    context: { x: 0 },
    states: {
      a: {
        invoke: {
          id: 'w',
          src: 'work',
          input: ({ self }: { self: unknown }) => void selfSeen.push(self !== undefined),
          onDone: {
            target: 'b',
            actions: assign(() => {
              if (throws-- > 0) throw new Error('assign blew up');
              return { x: 1 };
            }),
          },
        },
      },
      b: { type: 'final' },
    },
  });
}

describe('compiled step pipelines', () => {
  let redis: TestRedis;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());

  it('compiles step-only machines and refuses every construct it does not reproduce', () => {
    assert.equal(explainNotCompiled(chainMachine([], [])), null);
    assert.equal(explainNotCompiled(failingMachine([], [], true)), null);
    const work = step(async () => 1);
    const refused = (config: object, extra: object = {}): string | null =>
      explainNotCompiled(
        setup({ actors: { work }, ...extra }).createMachine(config as never) as unknown as AnyStateMachine,
      );
    const inv = { id: 'w', src: 'work', onDone: 'end' };
    const end = { type: 'final' };
    assert.match(
      refused({ initial: 'a', states: { a: { invoke: inv, on: { GO: 'end' } }, end } })!,
      /handles 'GO'/,
    );
    assert.match(
      refused({ initial: 'a', states: { a: { invoke: inv, after: { 100: 'end' } }, end } })!,
      /after/,
    );
    assert.match(refused({ initial: 'a', states: { a: { invoke: inv, entry: () => {} }, end } })!, /entry/);
    assert.match(
      refused({
        id: 'm',
        initial: 'a',
        states: { a: { initial: 'x', states: { x: { invoke: { ...inv, onDone: '#m.end' } } } }, end },
      })!,
      /compound state/,
    );
    assert.match(
      refused({
        initial: 'a',
        states: { a: { invoke: { ...inv, onDone: { target: 'end', actions: () => {} } } }, end },
      })!,
      /other than assign/,
    );
    assert.match(
      refused({
        initial: 'a',
        states: { a: { invoke: { ...inv, onDone: { target: 'end', guard: () => true } } }, end },
      })!,
      /unguarded/,
    );
    assert.match(refused({ initial: 'a', states: { a: {}, end } })!, /invokes 0/);
  });

  /** Runs `build` compiled and not, one job each with `input`; returns both records and logs. */
  async function both(
    name: string,
    build: (calls: Calls, selfSeen: boolean[]) => AnyStateMachine,
    input: unknown,
  ) {
    const h = new Harness(redis);
    try {
      const runs = {
        c: { calls: [] as Calls, self: [] as boolean[] },
        x: { calls: [] as Calls, self: [] as boolean[] },
      };
      const retry = { maxAttempts: 2, backoff: { type: 'fixed' as const, delayMs: 20 } };
      const jobs: AnyDefinition[] = [
        definePipeline({ name: `${name}-c`, machine: build(runs.c.calls, runs.c.self), retry }),
        definePipeline({
          name: `${name}-x`,
          machine: build(runs.x.calls, runs.x.self),
          retry,
          compile: false,
        }),
      ];
      assert.ok((jobs[0] as unknown as { compiled: unknown }).compiled, 'the first definition compiles');
      await h.started({ jobs });
      const client = h.client({ jobs });
      const out: Record<'c' | 'x', { record: Record<string, unknown>; log: unknown[] }> = {} as never;
      for (const k of ['c', 'x'] as const) {
        const id = await client.enqueue(`${name}-${k}`, input);
        const rec = await client.waitForResult(id, { timeoutMs: 5000 });
        const log = (await h.store.getLog(id)).map(({ at: _at, ...rest }) => rest);
        out[k] = {
          record: {
            status: rec.status,
            state: rec.state,
            output: rec.output,
            attempts: rec.attempts,
            error: rec.error && { message: rec.error.message, code: rec.error.code },
            snapshot: rec.snapshot,
          },
          log,
        };
      }
      assert.ok(runs.c.self.length > 0 && runs.c.self.every((s) => !s), 'the compiled run has no self');
      assert.ok(runs.x.self.length > 0 && runs.x.self.every((s) => s), 'the XState run has self');
      assert.deepEqual(runs.c.calls, runs.x.calls, 'the same steps ran, in the same order');
      assert.deepEqual(out.c.record, out.x.record);
      assert.deepEqual(out.c.log, out.x.log);
      return { ...out.c, calls: runs.c.calls };
    } finally {
      await h.close();
    }
  }

  it('stores what the XState runtime stores: guards, assigns and outputs, both branches', async () => {
    const big = await both('chain-big', chainMachine, { n: 7 });
    assert.deepEqual(big.record.output, { total: 15, path: ['big'], final: { last: 'big' } });
    assert.deepEqual(big.calls, ['double:d1:1', 'add']);
    const small = await both('chain-small', chainMachine, { n: 2 });
    assert.deepEqual(small.record.output, { total: 8, path: ['small'], final: { last: 'small' } });
  });

  it('stores what the XState runtime stores when a step fails: handled by onError, or retried from that step', async () => {
    const handled = await both('handled', (c, s) => failingMachine(c, s, true), {});
    assert.deepEqual(handled.record.output, { recovered: true });
    assert.equal(handled.record.attempts, 1);
    const retried = await both('retried', (c, s) => failingMachine(c, s, false), {});
    assert.equal(retried.record.status, 'done');
    assert.deepEqual(retried.calls, ['one', 'flaky@1', 'flaky@2'], 'the retry resumed at the failed step');
    const thrown = await both('assign-throws', throwingAssignMachine, {});
    assert.equal(thrown.record.status, 'done');
    assert.equal(thrown.record.attempts, 2);
    assert.equal((thrown.record.error as { message: string }).message, 'assign blew up');
  });

  it('ends a running step on timeout and on cancel through its signal, storing what the XState runtime stores', async () => {
    const h = new Harness(redis);
    try {
      const aborted: string[] = [];
      const make = (name: string, compile: boolean) =>
        definePipeline({
          name,
          compile,
          timeoutMs: 300,
          retry: { maxAttempts: 1 },
          machine: setup({
            actors: {
              quick: step(async () => 'q'),
              hang: step(async ({ signal }) => {
                signal.addEventListener('abort', () =>
                  aborted.push(`${name}:${(signal.reason as { reason?: string }).reason}`),
                );
                return untilAborted(signal);
              }),
            },
          }).createMachine({
            initial: 'a',
            states: {
              a: { invoke: { id: 'quick', src: 'quick', onDone: 'b' } },
              b: { invoke: { id: 'hang', src: 'hang', onDone: 'end' } },
              end: { type: 'final' },
            },
          }),
        });
      const jobs = [make('t-c', true), make('t-x', false), make('k-c', true), make('k-x', false)];
      assert.ok(jobs[0]!.compiled && !jobs[1]!.compiled);
      await h.started({ jobs });
      const client = h.client({ jobs });
      const records: Record<string, { status: string; state: unknown; error: unknown; snapshot: unknown }> =
        {};
      for (const name of ['t-c', 't-x', 'k-c', 'k-x']) {
        const id = await client.enqueue(name, {});
        if (name.startsWith('k')) {
          await eventually(async () => (await client.get(id))?.state === 'b');
          assert.equal(await client.cancel(id), true);
        }
        const rec = await client.waitForResult(id, { timeoutMs: 5000 });
        records[name] = {
          status: rec.status,
          state: rec.state,
          error: rec.error && { code: rec.error.code },
          snapshot: rec.snapshot,
        };
      }
      assert.equal(records['t-c']!.status, 'failed');
      assert.deepEqual(records['t-c']!.error, { code: 'TIMEOUT' });
      assert.equal(records['k-c']!.status, 'cancelled');
      assert.deepEqual(records['t-c'], records['t-x']);
      assert.deepEqual(records['k-c'], records['k-x']);
      assert.deepEqual(aborted.sort(), ['k-c:cancel', 'k-x:cancel', 't-c:timeout', 't-x:timeout']);
    } finally {
      await h.close();
    }
  });

  it('logs events sent to a running compiled job as ignored, as the XState runtime does', async () => {
    const h = new Harness(redis);
    try {
      // A job's gate is made by whichever asks first: the step may start before enqueue returns.
      const gates = new Map<string, ReturnType<typeof gate<unknown>>>();
      const gateOf = (id: string) => {
        let g = gates.get(id);
        if (!g) gates.set(id, (g = gate()));
        return g;
      };
      const make = (name: string, compile: boolean) =>
        definePipeline({
          name,
          compile,
          machine: setup({
            actors: { wait: step(async ({ jobId }) => gateOf(jobId).promise) },
          }).createMachine({
            initial: 'a',
            states: { a: { invoke: { id: 'w', src: 'wait', onDone: 'end' } }, end: { type: 'final' } },
          }),
        });
      const jobs = [make('e-c', true), make('e-x', false)];
      await h.started({ jobs });
      const client = h.client({ jobs });
      const logs: unknown[][] = [];
      for (const name of ['e-c', 'e-x']) {
        const id = await client.enqueue(name, {});
        await eventually(async () => (await client.get(id))?.state === 'a');
        // One at a time: each send is logged by the store, its fate by the worker, in that order.
        const sends: SendOptions[] = [
          {},
          { to: 'w' }, // the running step: sent, not taken
          { to: 'ghost' },
          { until: 'accepted' }, // no state takes PING: not held
          { to: 'later', until: 'accepted' }, // no actor 'later' yet: held, dropped at the end
        ];
        for (const [n, options] of sends.entries()) {
          await client.send(id, { type: 'PING' }, options);
          await eventually(
            async () =>
              (await h.store.getLog(id)).filter((e) => /^event(-ignored|-held)?$/.test(e.type)).length ===
              n + 1,
          );
        }
        gateOf(id).open(undefined);
        assert.equal((await client.waitForResult(id, { timeoutMs: 5000 })).status, 'done');
        logs.push((await h.store.getLog(id)).map(({ at: _at, ...rest }) => rest));
      }
      assert.ok(
        logs[0]!.some(
          (e) =>
            JSON.stringify(e) ===
            `{"type":"event-ignored","event":"PING","state":"a","reason":"no transition for 'PING' in the active states"}`,
        ),
        JSON.stringify(logs[0]),
      );
      assert.deepEqual(logs[0], logs[1]);
    } finally {
      await h.close();
    }
  });

  it('resumes a job checkpointed by one runtime in the other, re-running only the interrupted step', async () => {
    for (const [first, second] of [
      [true, false],
      [false, true],
    ] as const) {
      const h = new Harness(redis);
      try {
        const calls: string[] = [];
        let release = gate();
        const make = (compile: boolean) =>
          definePipeline({
            name: 'handover',
            compile,
            machine: setup({
              actors: {
                one: step(async () => void calls.push('one')),
                slow: step(async ({ idempotencyKey, signal }) => {
                  calls.push(`slow ${idempotencyKey.split(':').slice(1).join(':')}`);
                  await Promise.race([
                    release.promise,
                    new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
                  ]);
                  return 'slow done';
                }),
              },
            }).createMachine({
              initial: 'a',
              context: { got: null },
              states: {
                a: { invoke: { id: 'one', src: 'one', onDone: 'b' } },
                b: {
                  invoke: {
                    id: 'slow',
                    src: 'slow',
                    input: () => ({ k: 1 }),
                    onDone: { target: 'end', actions: assign({ got: ({ event }) => event.output }) },
                  },
                },
                end: { type: 'final' },
              },
              output: ({ context }) => context.got,
            }),
          });
        const sup1 = await h.started({ jobs: [make(first)] });
        const client = h.client({ jobs: [make(first)] });
        const id = await client.enqueue('handover', {});
        // The checkpoint of state b (the slow step running) is stored by the first runtime.
        await eventually(async () => (await client.get(id))?.state === 'b');
        await sup1.stop({ graceMs: 0 }); // shutdown: the job is requeued from its checkpoint
        release = gate();
        release.open();
        await h.started({ jobs: [make(second)] });
        const done = await client.waitForResult(id, { timeoutMs: 5000 });
        assert.equal(
          done.status,
          'done',
          `${first ? 'compiled' : 'XState'} -> ${second ? 'compiled' : 'XState'}`,
        );
        assert.equal(done.output, 'slow done');
        assert.deepEqual(
          calls,
          ['one', 'slow slow:1', 'slow slow:1'],
          'step one ran once; slow re-ran with its key',
        );
      } finally {
        await h.close();
      }
    }
  });
});
