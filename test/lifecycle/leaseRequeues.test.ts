// A job's lease-requeue budget counts crashes without progress: a checkpoint starts it over,
// so a long pipeline that keeps making progress between crashes is not failed LEASE_EXPIRED.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { NewJob } from '../../src/store/types.js';
import { sleep, startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';

describe('lease requeues', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  const job: NewJob = {
    id: '01JLEASE000000000000000000',
    machine: 'p',
    version: 1,
    input: 'null',
    band: 2,
    delayMs: 0,
    maxAttempts: 1,
  };
  const claim = { workerId: 'crashy', max: 1, leaseMs: 20, loadMachines: [] };

  /** Claims the job, optionally checkpoints, then "crashes": the lease runs out and is reaped. */
  async function crashOnce(checkpoint: boolean): Promise<void> {
    const res = await h.store.commit('default', [], claim);
    const token = res.claimed[0]!.token;
    if (checkpoint)
      await h.store.commit('default', [
        { kind: 'checkpoint', id: job.id, token, status: 'working', snapshot: '{"w":{}}', log: [] },
      ]);
    await sleep(40);
    await h.store.reap('default', { maxLeaseRequeues: 2, lockMs: 1 });
  }

  it('starts the count over at each checkpoint: 5 crashes, each after progress, leave the job queued', async () => {
    h = new Harness(redis);
    await h.store.enqueue('default', [job]);
    for (let i = 0; i < 5; i++) await crashOnce(true);
    const rec = await h.store.getJob(job.id);
    assert.equal(rec?.status, 'queued');
    assert.equal(rec?.leaseRequeues, 1);
  });

  it('fails LEASE_EXPIRED a job that crashes past its budget without progress', async () => {
    h = new Harness(redis);
    await h.store.enqueue('default', [job]);
    for (let i = 0; i < 3; i++) await crashOnce(false);
    const rec = await h.store.getJob(job.id);
    assert.equal(rec?.status, 'failed');
    assert.equal(rec?.error?.code, 'LEASE_EXPIRED');
  });

  it("a write after a migrate stores the snapshot's new version in the record", async () => {
    h = new Harness(redis);
    await h.store.enqueue('default', [job]);
    const token = (await h.store.commit('default', [], { ...claim, leaseMs: 30_000 })).claimed[0]!.token;
    await h.store.commit('default', [
      { kind: 'park', id: job.id, token, wakeAt: null, version: 3, snapshot: '{"w":{}}', log: [] },
    ]);
    assert.equal((await h.store.getJob(job.id))?.version, 3);
    assert.equal((await h.store.getJob(job.id))?.status, 'waiting');
  });
});
