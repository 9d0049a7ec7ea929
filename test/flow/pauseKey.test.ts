// Pausing one concurrency key (Client.pauseKey/resumeKey; docs/flow-control.md) on both stores:
// its jobs wait in its line, other keys run; a resume puts the line back at its places.

import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';

const job = defineJob({ name: 'f', work: () => 1 });
const claim = { workerId: 'w1', max: 10, leaseMs: 60_000, loadMachines: [] };

describeOnEachStore('pause one key', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  it("a paused key's jobs wait, others run; a resume puts them back in line", async () => {
    h = world();
    const client = h.client({ jobs: [job] });
    await client.pauseKey('default', 'a');
    const a1 = await client.enqueue('f', 1, { concurrencyKey: 'a' });
    const b1 = await client.enqueue('f', 2, { concurrencyKey: 'b' });
    const a2 = await client.enqueue('f', 3, { concurrencyKey: 'a' });
    assert.deepEqual(
      (await h.store.commit('default', [], claim)).claimed.map((c) => c.id),
      [b1],
    );
    const keys = (await client.queueLimits('default')).keys;
    assert.deepEqual(
      keys.find((k) => k.key === 'a'),
      { key: 'a', running: 0, waiting: 2, paused: true },
    );
    assert.equal((await h.store.commit('default', [], claim)).claimed.length, 0);
    await client.resumeKey('default', 'a');
    assert.deepEqual(
      (await h.store.commit('default', [], claim)).claimed.map((c) => c.id),
      [a1, a2],
    );
    assert.equal((await client.queueLimits('default')).keys.find((k) => k.key === 'a')?.paused, undefined);
  });
});
