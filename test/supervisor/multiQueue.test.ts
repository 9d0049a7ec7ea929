// One supervisor serving several queues (SupervisorOptions.queues): claims split by weight or in
// strict order, one concurrency over all of them, one wait for work that any queue's new job
// ends, and each queue's own parts (its control channel) running.

import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob, Supervisor } from '../../src/index.js';
import { MemoryStore } from '../../src/store/memory/MemoryStore.js';
import { eventually } from '../support/redis.js';
import { gate, untilAborted } from '../support/harness.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';
import type { RedisStore } from '../../src/store/redis/RedisStore.js';

describeOnEachStore('a supervisor serving several queues', (world, storeName) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  const recorder = () => {
    const order: string[] = [];
    const job = defineJob({ name: 'rec', work: ({ input }: { input: string }) => void order.push(input) });
    return { order, job };
  };

  it('claims by weight while both queues have work: 3 of every 4 from the queue of weight 3', async () => {
    h = world();
    const { order, job } = recorder();
    const client = h.client({ jobs: [job] });
    for (let i = 0; i < 8; i++) {
      await client.enqueue('rec', `a${i}`, { queue: 'a' });
      await client.enqueue('rec', `b${i}`, { queue: 'b' });
    }
    await h.started({
      jobs: [job],
      concurrency: 1,
      queues: [
        { name: 'a', weight: 3 },
        { name: 'b', weight: 1 },
      ],
    });
    await eventually(() => order.length === 16);
    const first8 = order.slice(0, 8);
    assert.equal(first8.filter((x) => x.startsWith('a')).length, 6, `order: ${order.join(' ')}`);
    // Then a ran out, and b's rest ran: nothing was starved or lost.
    assert.deepEqual(
      order.filter((x) => x.startsWith('b')),
      ['b0', 'b1', 'b2', 'b3', 'b4', 'b5', 'b6', 'b7'],
    );
  });

  it('takes turns at equal weights (the default)', async () => {
    h = world();
    const { order, job } = recorder();
    const client = h.client({ jobs: [job] });
    for (let i = 0; i < 3; i++) {
      await client.enqueue('rec', `a${i}`, { queue: 'a' });
      await client.enqueue('rec', `b${i}`, { queue: 'b' });
    }
    await h.started({ jobs: [job], concurrency: 1, queues: ['a', 'b'] });
    await eventually(() => order.length === 6);
    assert.deepEqual(order, ['a0', 'b0', 'a1', 'b1', 'a2', 'b2']);
  });

  it("claims in strict order: a later queue's jobs only once every earlier queue is empty", async () => {
    h = world();
    const { order, job } = recorder();
    const client = h.client({ jobs: [job] });
    for (let i = 0; i < 3; i++) {
      await client.enqueue('rec', `low${i}`, { queue: 'low' });
      await client.enqueue('rec', `high${i}`, { queue: 'high' });
    }
    await h.started({ jobs: [job], concurrency: 1, queues: ['high', 'low'], queueOrder: 'strict' });
    await eventually(() => order.length === 6);
    assert.deepEqual(order, ['high0', 'high1', 'high2', 'low0', 'low1', 'low2']);
  });

  it('wakes from an idle wait for a job on any of its queues', async () => {
    h = world();
    const { order, job } = recorder();
    const client = h.client({ jobs: [job] });
    // idleWaitMs long: only a signal can end the wait in time for `eventually`.
    await h.started({ jobs: [job], queues: ['a', 'b', 'c'], idleWaitMs: 60_000 });
    await client.enqueue('rec', 'c1', { queue: 'c' });
    await eventually(() => order.length === 1);
    await client.enqueue('rec', 'a1', { queue: 'a' });
    await eventually(() => order.length === 2);
    await client.enqueue('rec', 'b1', { queue: 'b' });
    await eventually(() => order.length === 3);
    assert.deepEqual(order, ['c1', 'a1', 'b1']);
  });

  it("sees a quiet queue's new job while another queue keeps every slot busy", async () => {
    h = world();
    const ran: string[] = [];
    const release = gate();
    let started = 0;
    const job = defineJob({
      name: 'slow',
      work: async ({ input }: { input: string }) => {
        ran.push(input);
        started++;
        if (input.startsWith('busy')) await release.promise;
      },
    });
    const client = h.client({ jobs: [job] });
    for (let i = 0; i < 6; i++) await client.enqueue('slow', `busy${i}`, { queue: 'busy' });
    await h.started({ jobs: [job], concurrency: 2, queues: ['busy', 'quiet'], idleWaitMs: 60_000 });
    await eventually(() => started === 2);
    await client.enqueue('slow', 'quiet1', { queue: 'quiet' });
    release.open();
    await eventually(() => ran.includes('quiet1'));
    // quiet1 did not wait for the busy queue's backlog to end: equal weights take turns.
    assert.ok(ran.indexOf('quiet1') < 5, `order: ${ran.join(' ')}`);
  });

  it('shares one concurrency over all its queues', async () => {
    h = world();
    let running = 0;
    let most = 0;
    let ended = 0;
    const release = gate();
    const job = defineJob({
      name: 'hold',
      work: async () => {
        most = Math.max(most, ++running);
        await release.promise;
        running--;
        ended++;
      },
    });
    const client = h.client({ jobs: [job] });
    for (const queue of ['a', 'b', 'c'])
      for (let i = 0; i < 3; i++) await client.enqueue('hold', null, { queue });
    await h.started({ jobs: [job], concurrency: 3, queues: ['a', 'b', 'c'] });
    await eventually(() => running === 3);
    release.open();
    await eventually(() => ended === 9);
    assert.equal(most, 3);
  });

  it("runs each queue's own parts: a cancel reaches a running job of the second queue", async () => {
    h = world();
    let aborted = false;
    const job = defineJob({
      name: 'c',
      work: async ({ signal }) => {
        signal.addEventListener('abort', () => (aborted = true));
        return untilAborted(signal);
      },
    });
    const client = h.client({ jobs: [job] });
    await h.started({ jobs: [job], queues: ['a', 'b'] });
    const id = await client.enqueue('c', null, { queue: 'b' });
    await eventually(async () => (await client.get(id, { queue: 'b' }))?.status === 'working');
    await client.cancel(id, { queue: 'b' });
    await eventually(async () => (await client.get(id, { queue: 'b' }))?.status === 'cancelled');
    assert.equal(aborted, true);
  });

  if (storeName === 'RedisStore')
    it('waits for work on one blocking connection, however many queues it serves', async () => {
      h = world();
      const { job } = recorder();
      const store = h.store as unknown as RedisStore;
      const blocked = async () => Number(/blocked_clients:(\d+)/.exec(await store.redis.info('clients'))![1]);
      const before = await blocked();
      await h.started({ jobs: [job], queues: ['a', 'b', 'c', 'd', 'e'], ingress: false, idleWaitMs: 60_000 });
      await eventually(async () => (await blocked()) === before + 1);
      // ... and stays one (no per-queue wait opened later).
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(await blocked(), before + 1);
    });
});

it('refuses queue and queues together, a queue named twice, and weights with strict order', () => {
  const store = new MemoryStore();
  assert.throws(
    () => new Supervisor({ store, jobs: [], queue: 'a', queues: ['a'] }),
    /queue or queues, not both/,
  );
  assert.throws(() => new Supervisor({ store, jobs: [], queues: ['a', 'a'] }), /named twice/);
  assert.throws(() => new Supervisor({ store, jobs: [], queues: [] }), /non-empty/);
  assert.throws(
    () => new Supervisor({ store, jobs: [], queues: [{ name: 'a', weight: 0 }] }),
    /weight of queue 'a'/,
  );
  assert.throws(
    () => new Supervisor({ store, jobs: [], queues: [{ name: 'a', weight: 2 }], queueOrder: 'strict' }),
    /takes no weights/,
  );
  void store.close();
});
