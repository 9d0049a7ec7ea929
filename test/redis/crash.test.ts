// Redis only: the killed workers are other processes, which cannot share a MemoryStore.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { eventually } from '../support/redis.js';
import { fixtureSuite } from '../support/spawnFixture.js';

describe('crash', () => {
  const suite = fixtureSuite();

  it('completes every job of a worker killed with SIGKILL mid-job, on another supervisor after lease expiry', async () => {
    const { h, w } = await suite.spawn('worker.ts');
    const ids = await h.client().enqueueMany([0, 1, 2].map((n) => ({ machine: 'slow', input: { n } })));
    await eventually(() => ids.every((id) => w.started.has(id)), 10_000);
    const killedAt = Date.now();
    await w.sigkill();

    // Nothing is lost: the jobs are still in Redis, held by a lease nobody will extend.
    for (const id of ids) assert.equal((await h.store.getJob(id))?.status, 'working');

    const done: string[] = [];
    const slow = defineJob({
      name: 'slow',
      work: ({ jobId }) => {
        done.push(jobId);
        return 'recovered';
      },
    });
    await h.started({ jobs: [slow] });
    const client = h.client({ jobs: [slow] });
    for (const id of ids) {
      const rec = await client.waitForResult(id, { timeoutMs: 10_000 });
      assert.equal(rec.status, 'done');
      assert.equal(rec.leaseRequeues, 1);
      assert.equal(rec.attempts, 1, 'a crash does not use up an attempt');
      assert.ok((await client.events(id)).some((e) => e.type === 'lease-requeued'));
    }
    assert.deepEqual([...done].sort(), [...ids].sort(), 'each job ran exactly once after the crash');
    const recoveredIn = Date.now() - killedAt;
    // Lease 1 s + reaper 200 ms, with slack for a loaded machine.
    assert.ok(recoveredIn < 5000, `recovered ${recoveredIn} ms after the kill`);
  });

  it('requeues a killed worker’s jobs when their lease passes, not at the next reaper interval', async () => {
    const { h, w } = await suite.spawn('worker.ts');
    const ids = await h.client().enqueueMany([0, 1].map((n) => ({ machine: 'slow', input: { n } })));
    await eventually(() => ids.every((id) => w.started.has(id)), 10_000);

    // The survivor is running before the crash, and its reaper interval (60 s) is far longer
    // than the lease (1 s): only a reap timed by the lease's end requeues the jobs in seconds.
    const slow = defineJob({ name: 'slow', work: () => 'recovered' });
    await h.started({ jobs: [slow], leaseMs: 1000, heartbeatMs: 250, reaperIntervalMs: 60_000 });
    const killedAt = Date.now();
    await w.sigkill();

    const client = h.client({ jobs: [slow] });
    for (const id of ids) {
      const rec = await client.waitForResult(id, { timeoutMs: 15_000 });
      assert.equal(rec.status, 'done');
      assert.equal(rec.leaseRequeues, 1);
    }
    const recoveredIn = Date.now() - killedAt;
    // The lease (1 s) and slack for a loaded machine, far below the 60 s interval.
    assert.ok(recoveredIn < 6000, `recovered ${recoveredIn} ms after the kill`);
  });
});
