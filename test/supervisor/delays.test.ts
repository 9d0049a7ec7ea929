import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { eventually, sleep } from '../support/redis.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';

describeOnEachStore('delays', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  it('keeps a delayed job in the store as queued with a future runAt, and runs it once due', async () => {
    h = world();
    const ranAt: number[] = [];
    const job = defineJob({ name: 'later', work: () => void ranAt.push(Date.now()) });
    const client = h.client({ jobs: [job] });
    // A running, idle supervisor: the delayed job must not be handed to it early.
    await h.started({ jobs: [job], idleWaitMs: 5000 });
    const before = Date.now();
    const id = await client.enqueue('later', null, { delayMs: 800 });
    const rec = await client.get(id);
    assert.equal(rec?.status, 'queued');
    assert.ok(rec?.runAt && rec.runAt >= before + 700, `runAt ${rec?.runAt} should be ~800 ms ahead`);
    assert.notEqual(await h.indexScore('delayed', id), null, 'waits in the delayed zset');
    assert.equal(await h.indexScore('queued', id), null, 'not in the runnable queue yet');
    await sleep(300);
    assert.equal(ranAt.length, 0, 'did not run before it was due');
    assert.equal((await client.get(id))?.status, 'queued');
    const done = await client.waitForResult(id, { timeoutMs: 5000 });
    assert.equal(done.status, 'done');
    assert.equal(ranAt.length, 1);
    assert.ok(ranAt[0]! - before >= 750, `ran ${ranAt[0]! - before} ms after enqueue`);
    // The supervisor woke for the due time, not after its 5 s idle wait.
    assert.ok(ranAt[0]! - before < 2500, `ran ${ranAt[0]! - before} ms after enqueue`);
    assert.equal(done.runAt, null);
  });

  it('holds no worker slot while a job waits out its delay', async () => {
    h = world();
    const ran: string[] = [];
    const job = defineJob({ name: 'w', work: ({ input }: { input: string }) => void ran.push(input) });
    const client = h.client({ jobs: [job] });
    await h.started({ jobs: [job], concurrency: 1 });
    const slow = await client.enqueue('w', 'delayed', { delayMs: 1500 });
    const now = await client.enqueue('w', 'now');
    await client.waitForResult(now, { timeoutMs: 3000 });
    assert.deepEqual(ran, ['now']);
    assert.equal((await client.get(slow))?.status, 'queued');
    await eventually(() => ran.length === 2, 5000);
  });
});
