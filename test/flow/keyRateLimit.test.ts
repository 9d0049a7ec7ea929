// The key throttle (keyRateLimit: one GCRA per concurrency key; docs/flow-control.md, THE KEY
// GATE in lua/include/lcKeyGate.lua and memory/keyGate.ts) on both stores: a key over its rate
// waits in its line (no slot, no attempt) while other keys run; the claim says when the key's
// rate allows, and the line goes back then. Times are the store's clock (redisNow).

import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';

const job = defineJob({ name: 'f', work: () => 1 });
const claim = { workerId: 'w1', max: 10, leaseMs: 60_000, loadMachines: [] };
const PER = 300;

describeOnEachStore('key throttle', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  it('holds a key over its rate in its line, others run, and wakes when its rate allows', async () => {
    h = world();
    const client = h.client({ jobs: [job] });
    await client.setQueueLimits('default', { keyRateLimit: { limit: 1, perMs: PER } });
    assert.deepEqual((await client.queueLimits('default')).limits, {
      keyRateLimit: { limit: 1, perMs: PER, burst: 0 },
    });
    const a = [];
    for (let i = 0; i < 3; i++) a.push(await client.enqueue('f', i, { concurrencyKey: 'a' }));
    const b = await client.enqueue('f', 'b', { concurrencyKey: 'b' });
    const first = await h.store.commit('default', [], claim);
    assert.deepEqual(
      first.claimed.map((c) => c.id),
      [a[0], b],
    );
    // The idle supervisor is told when key a's rate allows its next start (no polling).
    assert.ok(first.nextDueAt !== null, 'a next-due time for the key');
    assert.ok(first.nextDueAt >= first.redisNow + PER - 2 && first.nextDueAt <= first.redisNow + PER + 2);
    const use = (await client.queueLimits('default')).keys.find((k) => k.key === 'a');
    assert.deepEqual(use, { key: 'a', running: 1, waiting: 2 });
    // Before then nothing of a starts (even though it holds no slot limit).
    assert.equal((await h.store.commit('default', [], claim)).claimed.length, 0);
    await new Promise((res) => setTimeout(res, first.nextDueAt! - first.redisNow + 20));
    const second = await h.store.commit('default', [], claim);
    assert.deepEqual(
      second.claimed.map((c) => c.id),
      [a[1]],
    );
    assert.ok(second.redisNow >= first.redisNow + PER);
    // The waiting job used no attempt.
    assert.equal(second.claimed[0]!.attempt, 1);
    assert.ok(second.nextDueAt !== null && second.nextDueAt >= second.redisNow + PER - 2);
  });

  it('a job without a key is not held by the key throttle', async () => {
    h = world();
    const client = h.client({ jobs: [job] });
    await client.setQueueLimits('default', { keyRateLimit: { limit: 1, perMs: 60_000 } });
    for (let i = 0; i < 3; i++) await client.enqueue('f', i);
    assert.equal((await h.store.commit('default', [], claim)).claimed.length, 3);
  });
});
