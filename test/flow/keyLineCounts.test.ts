// Jobs waiting in their concurrency key's line (ckwait:<key>, set aside by the claim: key full,
// over its rate, or paused) are queued: counted in the queue's `queued` and listed with the
// queued jobs (docs/flow-control.md), on both stores, though they are in no index.

import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { queueTotals } from '../../src/store/queueTotals.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';

const job = defineJob({ name: 'f', work: () => 1 });
const claim = { workerId: 'w1', max: 10, leaseMs: 60_000, loadMachines: [] };

describeOnEachStore("jobs in a key's line", (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  it('are counted and listed as queued', async () => {
    h = world();
    const client = h.client({ jobs: [job] });
    await client.setQueueLimits('default', { concurrency: { perKey: 1 } });
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await client.enqueue('f', i, { concurrencyKey: 'k' }));
    await client.pauseKey('default', 'p');
    const p = await client.enqueue('f', 'p', { concurrencyKey: 'p' });
    const plain = await client.enqueue('f', 'plain');
    const claimed = (await h.store.commit('default', [], claim)).claimed.map((c) => c.id);
    assert.deepEqual(claimed, [ids[0], plain]);
    assert.deepEqual((await client.queueLimits('default')).keys, [
      { key: 'k', running: 1, waiting: 2 },
      { key: 'p', running: 0, waiting: 1, paused: true },
    ]);
    const counts = await h.store.counts('default');
    assert.equal(counts.queued, 3, 'the three jobs in key lines are queued');
    assert.equal((await queueTotals(h.store, 'default')).get('default')?.counts.queued, 3);
    const queued = await h.store.list({ queue: 'default', status: 'queued' });
    assert.deepEqual(queued.jobs.map((j) => j.id).sort(), [ids[1], ids[2], p].sort());
    const all = await h.store.list({ queue: 'default', limit: 2 });
    const seen = [...all.jobs.map((j) => j.id)];
    for (let cursor = all.cursor; cursor;) {
      const page = await h.store.list({ queue: 'default', limit: 2, cursor });
      seen.push(...page.jobs.map((j) => j.id));
      cursor = page.cursor;
    }
    assert.deepEqual(seen.sort(), [...ids, p, plain].sort(), 'every job once, paged');
  });
});
