import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assign, setup, sendTo } from 'xstate';
import { Client, RedisStore, RetryLaterError, Supervisor, definePipeline, step } from '../../src/index.js';
import type { AnyDefinition } from '../../src/runtime/registry.js';
import { eventually, startRedis, uniquePrefix, type TestRedis } from '../support/redis.js';

const fast = { leaseMs: 1000, heartbeatMs: 250, reaperIntervalMs: 200 };

describe('pipeline behaviour', () => {
  let redis: TestRedis;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());

  async function harness(jobs: AnyDefinition[], concurrency = 2) {
    const store = new RedisStore({ url: redis.url, prefix: uniquePrefix('pipe') });
    const sup = new Supervisor({ store, jobs, concurrency, ...fast });
    await sup.start();
    const client = new Client({ store, jobs });
    return {
      store,
      sup,
      client,
      close: async () => {
        await sup.stop({ graceMs: 500 });
        client.close();
        await store.close();
      },
    };
  }

  it('retries a failed step from that step, keeping earlier steps done, and stores errors as JSON', async () => {
    const runs: string[] = [];
    let failures = 1;
    const machine = setup({
      actors: {
        one: step(async () => void runs.push('one')),
        two: step(async ({ attempt }) => {
          runs.push(`two@${attempt}`);
          if (failures-- > 0) throw Object.assign(new Error('flaky'), { code: 'E_FLAKY' });
          return 'ok';
        }),
      },
    }).createMachine({
      initial: 's1',
      states: {
        s1: { invoke: { id: 'one', src: 'one', onDone: 's2' } },
        s2: { invoke: { id: 'two', src: 'two', onDone: 'end' } },
        end: { type: 'final' },
      },
      output: () => 'finished',
    });
    const t = await harness([
      definePipeline({
        name: 'flaky',
        machine,
        retry: { maxAttempts: 3, backoff: { type: 'fixed', delayMs: 50 } },
      }),
    ]);
    const id = await t.client.enqueue('flaky', {});
    const done = await t.client.waitForResult(id, { timeoutMs: 5000 });
    assert.equal(done.status, 'done');
    assert.equal(done.output, 'finished');
    assert.deepEqual(runs, ['one', 'two@1', 'two@2']);
    assert.equal(done.attempts, 2);
    assert.equal(done.error?.message, 'flaky');
    assert.equal(done.error?.code, 'E_FLAKY');
    await t.close();
  });

  it('fails with the error as {name, message, code, stack} after the last attempt', async () => {
    const machine = setup({
      actors: {
        boom: step(async () => Promise.reject(Object.assign(new TypeError('bad data'), { code: 'E_BAD' }))),
      },
    }).createMachine({ initial: 'a', states: { a: { invoke: { id: 'boom', src: 'boom' } } } });
    const t = await harness([definePipeline({ name: 'boom', machine, retry: { maxAttempts: 1 } })]);
    const id = await t.client.enqueue('boom', {});
    const rec = await t.client.waitForResult(id, { timeoutMs: 5000 });
    assert.equal(rec.status, 'failed');
    assert.equal(rec.error?.name, 'TypeError');
    assert.equal(rec.error?.message, 'bad data');
    assert.equal(rec.error?.code, 'E_BAD');
    assert.match(rec.error?.stack ?? '', /TypeError: bad data/);
    assert.equal((await t.client.deadLetters()).length, 1);
    await t.close();
  });

  it('lets a step ask to retry later without using an attempt', async () => {
    let calls = 0;
    const machine = setup({
      actors: {
        limited: step(async () => {
          if (++calls < 3) throw new RetryLaterError(50);
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
            onDone: { target: 'b', actions: assign({ n: ({ event }) => event.output }) },
          },
        },
        b: { type: 'final' },
      },
      output: ({ context }) => context.n,
    });
    const t = await harness([definePipeline({ name: 'limited', machine, retry: { maxAttempts: 1 } })]);
    const id = await t.client.enqueue('limited', {});
    const rec = await t.client.waitForResult(id, { timeoutMs: 5000 });
    assert.equal(rec.status, 'done');
    assert.equal(rec.output, 3);
    assert.equal(rec.attempts, 1);
    await t.close();
  });

  it('reports step progress on the job record and in the audit log', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const machine = setup({
      actors: {
        long: step(async ({ progress }) => {
          progress({ done: 3, total: 10 });
          await gate;
          return 1;
        }),
      },
    }).createMachine({
      initial: 'a',
      states: { a: { invoke: { id: 'long', src: 'long', onDone: 'b' } }, b: { type: 'final' } },
    });
    const t = await harness([definePipeline({ name: 'prog', machine })]);
    const id = await t.client.enqueue('prog', {});
    await eventually(
      async () => JSON.stringify((await t.client.get(id))?.progress) === '{"done":3,"total":10}',
    );
    release();
    await t.client.waitForResult(id, { timeoutMs: 5000 });
    assert.ok((await t.client.events(id)).some((e) => e.type === 'progress'));
    await t.close();
  });

  it('checkpoints nested and parallel states and an invoked child machine, and keeps the child’s timer durable', async () => {
    const child = setup({}).createMachine({
      id: 'child',
      initial: 'waiting',
      states: { waiting: { after: { 600: 'finished' } }, finished: { type: 'final' } },
      output: () => 'child-done',
    });
    const machine = setup({ actors: { child, quick: step(async () => 'q') } }).createMachine({
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
                    onDone: { target: 'innerDone', actions: assign({ quick: ({ event }) => event.output }) },
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
    void sendTo;
    const t = await harness([definePipeline({ name: 'nested', machine })]);
    const id = await t.client.enqueue('nested', {});
    await eventually(async () => (await t.client.get(id))?.status === 'waiting');
    const parked = await t.client.get(id);
    assert.deepEqual(parked!.state, { left: 'run', right: 'ok' });
    const snap = parked!.snapshot as {
      w: { children: Record<string, { snapshot: { value: string } }> };
      t: { source: string }[];
    };
    assert.equal(snap.w.children.kid!.snapshot.value, 'waiting');
    assert.equal(snap.t[0]!.source, 'kid');
    // Restart every worker while the child's timer is pending.
    await t.sup.stop();
    const sup2 = new Supervisor({
      store: t.store,
      jobs: [definePipeline({ name: 'nested', machine })],
      ...fast,
    });
    await sup2.start();
    const done = await t.client.waitForResult(id, { timeoutMs: 5000 });
    assert.deepEqual(done.output, { childOut: 'child-done', quick: 'q' });
    await sup2.stop();
    t.client.close();
    await t.store.close();
  });

  it('persists a change of an invoked child machine when its parent does not change', async () => {
    const child = setup({}).createMachine({
      id: 'kid',
      initial: 'one',
      states: { one: { after: { 300: 'two' } }, two: { on: { NEVER: 'one' } } },
    });
    const machine = setup({ actors: { child } }).createMachine({
      initial: 'run',
      states: { run: { invoke: { id: 'kid', src: 'child' } } },
    });
    const t = await harness([definePipeline({ name: 'kidOnly', machine })]);
    const id = await t.client.enqueue('kidOnly', {});
    await eventually(async () => {
      const rec = await t.client.get(id);
      const snap = rec?.snapshot as { w?: { children?: { kid?: { snapshot?: { value?: string } } } } } | null;
      return rec?.status === 'waiting' && snap?.w?.children?.kid?.snapshot?.value === 'two';
    }, 4000);
    assert.equal(t.sup.inFlight, 0);
    await t.close();
  });

  it('fails a job whose stored version is not registered, with the reason, and keeps serving others', async () => {
    const v1 = setup({}).createMachine({
      initial: 'wait',
      states: { wait: { on: { GO: 'end' } }, end: { type: 'final' } },
      output: () => 'v1',
    });
    const t = await harness([definePipeline({ name: 'ver', version: 1, machine: v1 })]);
    const id = await t.client.enqueue('ver', {});
    await eventually(async () => (await t.client.get(id))?.status === 'waiting');
    await t.sup.stop();
    const v2 = setup({}).createMachine({
      initial: 'other',
      states: { other: { on: { GO: 'end' } }, end: { type: 'final' } },
      output: () => 'v2',
    });
    const sup2 = new Supervisor({
      store: t.store,
      jobs: [definePipeline({ name: 'ver', version: 2, machine: v2 })],
      ...fast,
    });
    await sup2.start();
    await t.client.send(id, { type: 'GO' });
    const rec = await t.client.waitForResult(id, { timeoutMs: 5000 });
    assert.equal(rec.status, 'failed');
    assert.equal(rec.error?.code, 'UNKNOWN_VERSION');
    assert.match(rec.error?.message ?? '', /version 1 is not registered/);
    const other = await new Client({ store: t.store }).enqueue('ver', {});
    await eventually(async () => (await t.client.get(other))?.status === 'waiting');
    await sup2.stop();
    t.client.close();
    await t.store.close();
  });

  it('upgrades an old snapshot with the migrate hook', async () => {
    const v1 = setup({}).createMachine({
      initial: 'wait',
      states: { wait: { on: { GO: 'end' } }, end: { type: 'final' } },
    });
    const t = await harness([definePipeline({ name: 'mig', version: 1, machine: v1 })]);
    const id = await t.client.enqueue('mig', {});
    await eventually(async () => (await t.client.get(id))?.status === 'waiting');
    await t.sup.stop();
    const v2 = setup({}).createMachine({
      initial: 'pending',
      states: { pending: { on: { GO: 'end' } }, end: { type: 'final' } },
      output: () => 'migrated',
    });
    const migrate = (snap: unknown, from: number) => {
      assert.equal(from, 1);
      const s = snap as { value: string };
      return { ...s, value: s.value === 'wait' ? 'pending' : s.value };
    };
    const sup2 = new Supervisor({
      store: t.store,
      jobs: [definePipeline({ name: 'mig', version: 2, machine: v2, migrate })],
      ...fast,
    });
    await sup2.start();
    await t.client.send(id, { type: 'GO' });
    const rec = await t.client.waitForResult(id, { timeoutMs: 5000 });
    assert.equal(rec.status, 'done');
    assert.equal(rec.output, 'migrated');
    await sup2.stop();
    t.client.close();
    await t.store.close();
  });
});
