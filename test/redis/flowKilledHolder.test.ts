// A concurrency slot held by a worker killed with SIGKILL returns when its lease passes
// (docs/flow-control.md; bullmq #3210 is the failure this guards against: a group limit of 1
// running 2). Redis only: the killed worker is another process.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { eventually } from '../support/redis.js';
import { fixtureSuite } from '../support/spawnFixture.js';

describe('flow gate: a killed holder', () => {
  const suite = fixtureSuite();

  it("returns a SIGKILLed holder's slot of its key when its lease passes, never running two at once", async () => {
    const { h, w } = await suite.spawn('worker.ts');
    const client = h.client();
    await client.setQueueLimits('default', { concurrency: { perKey: 1 } });
    const first = await client.enqueue('slow', { n: 0 }, { concurrencyKey: 'k' });
    const second = await client.enqueue('slow', { n: 1 }, { concurrencyKey: 'k' });
    await eventually(() => w.started.has(first), 10_000);
    // The worker holds the key's one slot: the second job waits for it (set aside by the worker's
    // next claim, which may come after the first job started: wait for it, on a loaded box).
    await eventually(async () => (await client.queueLimits('default')).keys[0]?.waiting === 1, 10_000);
    assert.deepEqual((await client.queueLimits('default')).keys, [{ key: 'k', running: 1, waiting: 1 }]);
    assert.equal(w.started.has(second), false);
    await w.sigkill();

    // Another supervisor: the reaper requeues the dead worker's job once its lease (1 s)
    // passes, which frees the slot; the jobs then run one at a time.
    let running = 0;
    let most = 0;
    const ran: string[] = [];
    const slow = defineJob({
      name: 'slow',
      work: async ({ jobId }) => {
        most = Math.max(most, ++running);
        ran.push(jobId);
        await new Promise((r) => setTimeout(r, 20));
        running--;
        return 'ok';
      },
    });
    await h.started({ jobs: [slow], concurrency: 4, reaperIntervalMs: 100 });
    for (const id of [first, second])
      assert.equal((await client.waitForResult(id, { timeoutMs: 10_000 })).status, 'done');
    assert.deepEqual(ran, [first, second], 'the requeued holder first: it kept its place');
    assert.equal(most, 1, 'never two of the key at once');
    assert.deepEqual((await client.queueLimits('default')).keys, [], 'no slot left held');
  });
});
