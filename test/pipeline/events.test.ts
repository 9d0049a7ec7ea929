// Events sent to pipeline jobs (client.send): why one is ignored, delivery to a child machine
// (`to`), and an event kept until a state accepts it (`until: 'accepted'`).

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { and, assign, sendParent, setup, spawnChild } from 'xstate';
import { ValidationError, definePipeline, step, type SendOptions } from '../../src/index.js';
import type { AuditEntry } from '../../src/store/types.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { Harness, gate } from '../support/harness.js';

/** Parks in `waiting` until a manager approves (guarded), then ends. */
const approvals = setup({
  types: { events: {} as { type: 'APPROVE'; role: string } | { type: 'REJECT' } },
  guards: {
    isManager: ({ event }) => (event as { role?: string }).role === 'manager',
    notFriday: () => true,
  },
}).createMachine({
  initial: 'waiting',
  context: { by: '' },
  states: {
    waiting: {
      on: {
        APPROVE: [
          { guard: 'isManager', target: 'approved', actions: assign({ by: 'manager' }) },
          {
            guard: and(['notFriday', ({ event }) => (event as { role?: string }).role === 'lead']),
            target: 'approved',
          },
        ],
      },
    },
    approved: { type: 'final' },
  },
  output: ({ context }) => context,
});

/** Waits for SIGN, then is done. */
const inner = setup({}).createMachine({
  initial: 'unsigned',
  states: { unsigned: { on: { SIGN: 'signed' } }, signed: { type: 'final' } },
  output: () => 'signed',
});

/** Invokes `inner` as 'inner' and ends with its output. */
const reviewer = setup({ actors: { inner } }).createMachine({
  initial: 'reviewing',
  states: {
    reviewing: { invoke: { id: 'inner', src: 'inner', onDone: 'reviewed' } },
    reviewed: { type: 'final' },
  },
  output: () => 'reviewed',
});

/** Tells its parent BUMPED for each BUMP it gets. */
const counter = setup({}).createMachine({
  on: { BUMP: { actions: sendParent({ type: 'BUMPED' }) } },
});

/** An invoked child machine (with a grandchild) and a spawned one; the root takes neither's events. */
const family = setup({
  types: { context: {} as { bumps: number } },
  actors: { reviewer, counter },
}).createMachine({
  entry: spawnChild('counter', { id: 'counter' }),
  context: { bumps: 0 },
  on: { BUMPED: { actions: assign({ bumps: ({ context }) => context.bumps + 1 }) } },
  initial: 'reviewing',
  states: {
    reviewing: { invoke: { id: 'review', src: 'reviewer', onDone: 'done' } },
    done: { type: 'final' },
  },
  output: ({ context }) => context,
});

describe('pipeline events', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  const ignored = async (id: string, n: number): Promise<AuditEntry[]> =>
    (await eventually(async () => {
      const found = (await h.store.getLog(id)).filter((e) => e.type === 'event-ignored');
      return found.length >= n ? found : null;
    }))!;

  it('logs why an event was ignored: no transition for it, or the guards that returned false', async () => {
    h = new Harness(redis);
    const jobs = [definePipeline({ name: 'approvals', machine: approvals })];
    await h.started({ jobs });
    const client = h.client({ jobs });
    const id = await client.enqueue('approvals', null);
    await eventually(async () => (await client.get(id))?.status === 'waiting');
    await client.send(id, { type: 'REJECT' });
    await client.send(id, { type: 'APPROVE', role: 'intern' });
    const [noTransition, guarded] = await ignored(id, 2);
    assert.equal(noTransition!.event, 'REJECT');
    assert.equal(noTransition!.reason, "no transition for 'REJECT' in the active states");
    assert.equal(guarded!.event, 'APPROVE');
    assert.deepEqual(guarded!.guards, ['isManager', 'and(notFriday, inline)']);
    assert.equal(guarded!.reason, "guards returned false: 'isManager', 'and(notFriday, inline)'");
    await client.send(id, { type: 'APPROVE', role: 'manager' });
    assert.deepEqual((await client.waitForResult(id, { timeoutMs: 5000 })).output, { by: 'manager' });
  });

  it("delivers an event to an invoked or spawned child machine named by `to` (an id path: 'review/inner')", async () => {
    h = new Harness(redis);
    const jobs = [definePipeline({ name: 'family', machine: family })];
    await h.started({ jobs });
    const client = h.client({ jobs });
    const id = await client.enqueue('family', null);
    await eventually(async () => (await client.get(id))?.status === 'waiting');
    await client.send(id, { type: 'SIGN' }); // the root has no SIGN: ignored
    await client.send(id, { type: 'BUMP' }, { to: 'counter' });
    await client.send(id, { type: 'BUMP' }, { to: 'counter' });
    await client.send(id, { type: 'SIGN' }, { to: 'review/ghost' });
    await client.send(id, { type: 'SIGN' }, { to: 'review/inner' });
    const rec = await client.waitForResult(id, { timeoutMs: 10_000 });
    assert.equal(rec.status, 'done');
    assert.deepEqual(rec.output, { bumps: 2 });
    const log = await client.events(id);
    const taken = log
      .filter((e) => e.type === 'event')
      .map((e) => `${e.event as string}>${(e.to as string | undefined) ?? ''}`);
    assert.deepEqual(taken, ['BUMP>counter', 'BUMP>counter', 'SIGN>review/inner']);
    const notTaken = log.filter((e) => e.type === 'event-ignored');
    assert.deepEqual(
      notTaken.map((e) => [e.event, e.to, e.reason]),
      [
        ['SIGN', undefined, "no transition for 'SIGN' in the active states"],
        ['SIGN', 'review/ghost', "no actor at 'review/ghost'"],
      ],
    );
  });

  it('refuses a bad `to`, `until` or `ttlMs` with the field named, sending nothing', async () => {
    h = new Harness(redis);
    const jobs = [definePipeline({ name: 'approvals', machine: approvals })];
    const client = h.client({ jobs });
    const id = await client.enqueue('approvals', null);
    const bad: [SendOptions, string][] = [
      [{ to: '' }, 'to'],
      [{ to: 'a//b' }, 'to'],
      [{ to: '/a' }, 'to'],
      [{ to: 7 as never }, 'to'],
      [{ until: 'done' as never }, 'until'],
      [{ ttlMs: 100 }, 'ttlMs'],
      [{ until: 'accepted', ttlMs: 0 }, 'ttlMs'],
      [{ until: 'accepted', ttlMs: 1.5 }, 'ttlMs'],
    ];
    for (const [options, field] of bad) {
      await assert.rejects(
        client.send(id, { type: 'APPROVE', role: 'x' }, options),
        (err: unknown) => err instanceof ValidationError && err.field === field,
        JSON.stringify(options),
      );
    }
    assert.equal(await h.raw.llen(h.key(`inbox:${id}`)), 0);
  });

  it("drops an event sent before a state takes it, and keeps one sent with until: 'accepted' until one does", async () => {
    h = new Harness(redis);
    const busy = gate();
    const machine = setup({ actors: { work: step(() => busy.promise) } }).createMachine({
      initial: 'busy',
      context: { got: [] as string[] },
      states: {
        busy: { invoke: { id: 'work', src: 'work', onDone: 'ready' } },
        ready: {
          on: {
            GO: {
              target: 'done',
              actions: assign({ got: ({ context, event }) => [...context.got, event.type] }),
            },
          },
        },
        done: { type: 'final' },
      },
      output: ({ context }) => context,
    });
    const jobs = [definePipeline({ name: 'early', machine })];
    await h.started({ jobs });
    const client = h.client({ jobs });
    const id = await client.enqueue('early', null);
    await eventually(async () => (await client.get(id))?.state === 'busy');
    await client.send(id, { type: 'GO', n: 1 }); // plain XState: the busy state drops it
    await eventually(async () => (await client.events(id)).some((e) => e.type === 'event-ignored'));
    await client.send(id, { type: 'GO', n: 2 }, { until: 'accepted' });
    await eventually(async () => (await client.events(id)).some((e) => e.type === 'event-held'));
    busy.open();
    const rec = await client.waitForResult(id, { timeoutMs: 10_000 });
    assert.equal(rec.status, 'done');
    assert.deepEqual(rec.output, { got: ['GO'] });
    const log = (await client.events(id)).filter((e) => e.type.startsWith('event-') || e.type === 'event');
    assert.deepEqual(
      log.map((e) => e.type),
      ['event-received', 'event-ignored', 'event-received', 'event-held', 'event'],
    );
  });

  it('keeps a held event across parking (stored with the job) and logs it expired after ttlMs', async () => {
    h = new Harness(redis);
    const machine = setup({}).createMachine({
      initial: 'first',
      states: {
        first: { on: { NEXT: 'second' } },
        second: { on: { GO: 'done' } },
        done: { type: 'final' },
      },
    });
    const jobs = [definePipeline({ name: 'parked', machine })];
    await h.started({ jobs });
    const client = h.client({ jobs });
    const id = await client.enqueue('parked', null);
    await eventually(async () => (await client.get(id))?.status === 'waiting');
    await client.send(id, { type: 'GO' }, { until: 'accepted', ttlMs: 300 });
    // Parked again holding it, then woken at its expiry to log it gone.
    const expired = await eventually(
      async () => (await client.events(id)).find((e) => e.type === 'event-expired'),
      10_000,
    );
    assert.equal(expired?.event, 'GO');
    await eventually(async () => (await client.get(id))?.status === 'waiting');
    assert.equal((await client.get(id))?.state, 'first');

    await client.send(id, { type: 'GO' }, { until: 'accepted', ttlMs: 60_000 });
    await eventually(async () => {
      const log = await client.events(id);
      return (
        log.filter((e) => e.type === 'event-held').length === 2 &&
        (await client.get(id))?.status === 'waiting'
      );
    });
    await client.send(id, { type: 'NEXT' }); // to `second`, which takes the held GO
    const rec = await client.waitForResult(id, { timeoutMs: 10_000 });
    assert.equal(rec.status, 'done');
    assert.equal(rec.state, 'done');
    // Each event is logged before the state it led to.
    const steps = (await client.events(id))
      .filter((e) => e.type === 'event' || (e.type === 'state' && e.state !== 'first'))
      .map((e) => `${e.type} ${(e.event ?? e.state) as string}`);
    assert.deepEqual(steps, ['event NEXT', 'state second', 'event GO', 'state done']);
  });

  it('keeps a held event across a retry of the attempt it was held in', async () => {
    h = new Harness(redis);
    const busy = gate();
    let runs = 0;
    const machine = setup({
      actors: {
        work: step(async () => {
          if (++runs === 1) {
            await busy.promise;
            throw new Error('first attempt fails');
          }
        }),
      },
    }).createMachine({
      initial: 'busy',
      states: {
        busy: { invoke: { id: 'work', src: 'work', onDone: 'ready' } },
        ready: { on: { GO: 'done' } },
        done: { type: 'final' },
      },
    });
    const jobs = [
      definePipeline({ name: 'retried', machine, retry: { backoff: { type: 'fixed', delayMs: 10 } } }),
    ];
    await h.started({ jobs });
    const client = h.client({ jobs });
    const id = await client.enqueue('retried', null);
    await eventually(async () => (await client.get(id))?.state === 'busy');
    await client.send(id, { type: 'GO' }, { until: 'accepted' });
    // Held, and stored with a checkpoint, before the attempt fails.
    await eventually(async () => ((await client.get(id))?.snapshot as { h?: unknown[] })?.h?.length === 1);
    busy.open();
    const rec = await client.waitForResult(id, { timeoutMs: 10_000 });
    assert.equal(rec.status, 'done');
    assert.equal(rec.attempts, 2);
    assert.equal(runs, 2);
  });
});
