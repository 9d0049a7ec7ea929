// A queue with no per-key limit keeps no per-key slots (lua/include/lcFlow.lua: the holder sets
// exist only while `perKey` is set). Setting perKey while keyed jobs run must count those running
// jobs, in the same atomic change: the slots are rebuilt from the running jobs.

import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';
import { claimUpTo, doneOp } from '../support/claimOps.js';

const job = defineJob({ name: 'f', work: () => 1 });

describeOnEachStore('per-key slots set while keyed jobs run', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  it('perKey set while two jobs of a key run counts them: no third starts until one ends', async () => {
    h = world();
    const client = h.client({ jobs: [job] });
    for (let i = 0; i < 5; i++) await client.enqueue('f', i, { concurrencyKey: 'k' });
    const running = (await h.store.commit('default', [], claimUpTo(2))).claimed;
    assert.equal(running.length, 2);
    await client.setQueueLimits('default', { concurrency: { perKey: 2 } });
    assert.equal((await h.store.commit('default', [], claimUpTo(5))).claimed.length, 0);
    const view = await client.queueLimits('default');
    assert.equal(view.keys.find((k) => k.key === 'k')?.running, 2);
    // One ends: exactly one more starts.
    const next = (await h.store.commit('default', [doneOp(running[0]!)], claimUpTo(5))).claimed;
    assert.equal(next.length, 1);
    // Cleared and set again: still counted right (no slot left over from before).
    await client.setQueueLimits('default', { concurrency: { perKey: null } });
    await client.setQueueLimits('default', { concurrency: { perKey: 3 } });
    const more = (await h.store.commit('default', [doneOp(running[1]!)], claimUpTo(5))).claimed;
    assert.equal(more.length, 2);
    assert.equal((await h.store.commit('default', [], claimUpTo(5))).claimed.length, 0);
  });

  it('with no perKey the limits view still counts the running jobs of each key', async () => {
    h = world();
    const client = h.client({ jobs: [job] });
    for (let i = 0; i < 3; i++) await client.enqueue('f', i, { concurrencyKey: 'k' });
    await h.store.commit('default', [], claimUpTo(2));
    const view = await client.queueLimits('default');
    assert.deepEqual(
      view.keys.map((k) => [k.key, k.running]),
      [['k', 2]],
    );
  });
});
