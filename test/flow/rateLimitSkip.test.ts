// mode 'skip' on a throttle (docs/flow-control.md) on both stores: a job over the queue's rate,
// or over its key's rate, is ended cancelled at its claim, unrun, its audit log saying why,
// instead of waiting.

import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';

const job = defineJob({ name: 'f', work: () => 1 });
const claim = { workerId: 'w1', max: 10, leaseMs: 60_000, loadMachines: [] };

describeOnEachStore('rate limit mode skip', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  async function reason(client: ReturnType<AnyStoreWorld['client']>, id: string): Promise<string> {
    assert.equal((await client.get(id))?.status, 'cancelled');
    const e = (await client.events(id)).find((x) => x.type === 'cancelled') as
      { reason?: string } | undefined;
    return e?.reason ?? '';
  }

  it('a job over the queue rate is cancelled unrun, saying why', async () => {
    h = world();
    const client = h.client({ jobs: [job] });
    await client.setQueueLimits('default', { rateLimit: { limit: 1, perMs: 60_000, mode: 'skip' } });
    assert.equal((await client.queueLimits('default')).limits.rateLimit?.mode, 'skip');
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await client.enqueue('f', i));
    const r = await h.store.commit('default', [], claim);
    assert.deepEqual(
      r.claimed.map((c) => c.id),
      [ids[0]],
    );
    for (const id of ids.slice(1))
      assert.match(await reason(client, id), /queue over its rate limit \(mode skip\)/);
    assert.equal((await h.store.counts('default')).queued, 0);
  });

  it('a job over its key rate is cancelled unrun; other keys run', async () => {
    h = world();
    const client = h.client({ jobs: [job] });
    await client.setQueueLimits('default', { keyRateLimit: { limit: 1, perMs: 60_000, mode: 'skip' } });
    const a1 = await client.enqueue('f', 1, { concurrencyKey: 'a' });
    const a2 = await client.enqueue('f', 2, { concurrencyKey: 'a' });
    const b1 = await client.enqueue('f', 3, { concurrencyKey: 'b' });
    // A job cancelled for its key's rate does not take the place of one that may start: a claim
    // of 2 pops on past it.
    const r = await h.store.commit('default', [], { ...claim, max: 2 });
    assert.deepEqual(
      r.claimed.map((c) => c.id),
      [a1, b1],
    );
    assert.match(await reason(client, a2), /concurrency key a is over its rate limit \(mode skip\)/);
  });
});
