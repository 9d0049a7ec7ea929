// A cancel is final: whatever a job's attempt writes after the cancel was asked for (a retry, a
// requeue, a park) and a lease requeue all end the job cancelled, so a control message that is
// late or lost cannot let it run again (the CANCEL GUARD in lua/include/lcMove.lua). A claim
// needs no check of its own: as each test here shows, no path puts a job with a cancel request
// back in `queued`, and a job that is not running is cancelled at once.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import type { CommitOp } from '../../src/store/types.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';

describe('the cancel guard', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  it('ends cancelled a job whose failing attempt wrote its retry before the cancel message arrived', async () => {
    h = new Harness(redis);
    let runs = 0;
    const canceller = h.client();
    const job = defineJob({
      name: 'flaky',
      retry: { maxAttempts: 3, backoff: { type: 'fixed', delayMs: 10 } },
      work: async ({ jobId }) => {
        runs++;
        // The cancel lands in Redis, and the attempt fails before its worker hears of it.
        await canceller.cancel(jobId);
        throw new Error('boom');
      },
    });
    const client = h.client({ jobs: [job] });
    await h.started({ jobs: [job] });
    const id = await client.enqueue('flaky', null);
    const rec = await client.waitForResult(id, { timeoutMs: 5000 });
    assert.equal(rec.status, 'cancelled');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(runs, 1, 'the job never ran again after the cancel');
  });

  /** A job claimed by a worker that is not running (a fake lease holder), then cancelled. */
  async function claimedThenCancelled(leaseMs = 30_000) {
    const job = defineJob({ name: 'j', work: () => 'ran' });
    const client = h.client({ jobs: [job] });
    const id = await client.enqueue('j', null);
    const token = (await h.claimAs('ghost', { leaseMs }))[0]!.token;
    assert.equal(await client.cancel(id), true);
    assert.equal((await client.get(id))?.cancelRequested, true);
    return { job, client, id, token };
  }

  const writes: [string, (id: string, token: string) => CommitOp][] = [
    ['retry', (id, token) => ({ kind: 'retry', id, token, error: '{}', delayMs: 0, attempt: 2, log: [] })],
    ['requeue', (id, token) => ({ kind: 'requeue', id, token, log: [] })],
    ['park', (id, token) => ({ kind: 'park', id, token, wakeAt: null, snapshot: '{}', log: [] })],
  ];
  for (const [kind, op] of writes) {
    it(`ends cancelled a job whose attempt writes a ${kind} after the cancel, and never runs it`, async () => {
      h = new Harness(redis);
      const { job, client, id, token } = await claimedThenCancelled();
      const res = await h.store.commit('default', [op(id, token)]);
      assert.deepEqual(res.written, [true]);
      const rec = await client.get(id);
      assert.equal(rec?.status, 'cancelled');
      for (const index of ['queued', 'delayed', 'waiting', 'active'])
        assert.equal(await h.raw.zscore(h.key(index), id), null, `not in ${index}`);
      assert.notEqual(await h.raw.zscore(h.key('cancelled'), id), null);
      await h.started({ jobs: [job] });
      await new Promise((r) => setTimeout(r, 400));
      assert.equal((await client.get(id))?.status, 'cancelled');
      assert.equal(rec?.output, null);
    });
  }

  it('ends cancelled a job whose lease expired after the cancel, without running it', async () => {
    h = new Harness(redis);
    const { job, client, id } = await claimedThenCancelled(50);
    let ran = false;
    const watched = defineJob({ name: 'j', work: () => void (ran = true) });
    await h.started({ jobs: [watched] });
    await eventually(async () => (await client.get(id))?.status === 'cancelled');
    assert.equal(ran, false);
    assert.equal(job.name, 'j');
  });

  it('cancels a job in retry backoff at once, and it never runs again', async () => {
    h = new Harness(redis);
    let runs = 0;
    const job = defineJob({
      name: 'b',
      retry: { maxAttempts: 3, backoff: { type: 'fixed', delayMs: 60_000 } },
      work: () => {
        runs++;
        throw new Error('boom');
      },
    });
    const client = h.client({ jobs: [job] });
    await h.started({ jobs: [job] });
    const id = await client.enqueue('b', null);
    await eventually(async () => (await client.get(id))?.runAt !== null && runs === 1);
    assert.equal(await client.cancel(id), true);
    assert.equal((await client.get(id))?.status, 'cancelled');
    assert.equal(await h.raw.zscore(h.key('delayed'), id), null);
    assert.equal(runs, 1);
  });
});
