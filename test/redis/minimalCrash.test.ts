// A minimal record (`record: 'minimal'`, docs/concepts.md) keeps the delivery contract through a
// crash: a worker SIGKILLed mid-job leaves the job's record in place (a minimal record is deleted
// only as it ends done), the reaper requeues it when the lease passes, and another supervisor
// runs it to done exactly once; then the record is gone and its waiter had the result.
// Redis only: the killed worker is another process, which cannot share a MemoryStore.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { eventually } from '../support/redis.js';
import { fixtureSuite } from '../support/spawnFixture.js';

describe('a minimal record through a crash', () => {
  const suite = fixtureSuite();

  it("a SIGKILLed worker's minimal jobs are reaped and run to done exactly once, then deleted", async () => {
    const { h, w } = await suite.spawn('worker.ts');
    const client = h.client();
    const ids = await client.enqueueMany(
      [0, 1, 2].map((n) => ({ machine: 'slow', input: { n }, options: { record: 'minimal' as const } })),
    );
    await eventually(() => ids.every((id) => w.started.has(id)), 10_000);
    await w.sigkill();
    for (const id of ids)
      assert.equal((await h.store.getJob(id))?.status, 'working', 'kept while unfinished');

    // Waiting on two of them; the third ends the plain way, with no watcher.
    const waits = ids.slice(0, 2).map((id) => client.waitForResult(id, { timeoutMs: 15_000 }));
    const ran: string[] = [];
    const slow = defineJob({
      name: 'slow',
      work: ({ jobId }) => {
        ran.push(jobId);
        return 'recovered';
      },
    });
    await h.started({ jobs: [slow] });
    for (const rec of await Promise.all(waits)) {
      assert.equal(rec.status, 'done');
      assert.equal(rec.output, 'recovered');
      assert.equal(rec.leaseRequeues, 1);
    }
    await eventually(
      async () => (await Promise.all(ids.map((id) => h.store.getJob(id)))).every((r) => r === null),
      10_000,
    );
    assert.deepEqual([...ran].sort(), [...ids].sort(), 'each job ran exactly once after the crash');
    assert.ok(!(await h.keys()).some((k) => ids.some((id) => k.includes(id))), 'nothing of the jobs is left');
  });
});
