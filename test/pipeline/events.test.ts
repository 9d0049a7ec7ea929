// Events sent to pipeline jobs (client.send): why one is ignored, delivery to a child machine
// (`to`), and an event kept until a state accepts it (`until: 'accepted'`).

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { and, assign, sendParent, setup, spawnChild } from 'xstate';
import { ValidationError, definePipeline } from '../../src/index.js';
import type { AuditEntry } from '../../src/store/types.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';

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

  it('refuses a bad `to` with the field named, sending nothing', async () => {
    h = new Harness(redis);
    const jobs = [definePipeline({ name: 'approvals', machine: approvals })];
    const client = h.client({ jobs });
    const id = await client.enqueue('approvals', null);
    for (const to of ['', 'a//b', '/a', 7]) {
      await assert.rejects(
        client.send(id, { type: 'APPROVE', role: 'x' }, { to } as never),
        (err: unknown) => err instanceof ValidationError && err.field === 'to',
        JSON.stringify(to),
      );
    }
    assert.equal(await h.raw.llen(h.key(`inbox:${id}`)), 0);
  });
});
