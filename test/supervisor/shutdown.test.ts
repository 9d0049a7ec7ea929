import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { eventually, sleep } from '../support/redis.js';
import { gate, untilAborted } from '../support/harness.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';

describeOnEachStore('shutdown', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  it('stop({ graceMs }) lets in-flight jobs finish and stops claiming', async () => {
    h = world();
    const started = gate();
    const job = defineJob({
      name: 'j',
      work: async ({ input }: { input: string }) => {
        if (input === 'first') {
          started.open();
          await sleep(400);
        }
        return input;
      },
    });
    const client = h.client({ jobs: [job] });
    const sup = await h.started({ jobs: [job] });
    const id = await client.enqueue('j', 'first');
    await started.promise;
    const res = await sup.stop({ graceMs: 5000 });
    assert.deepEqual(res, { forced: false, requeued: 0 });
    const rec = await client.get(id);
    assert.equal(rec?.status, 'done');
    assert.equal(rec?.output, 'first');
    const late = await client.enqueue('j', 'late');
    await sleep(400);
    assert.equal((await client.get(late))?.status, 'queued', 'a stopped supervisor claims nothing');
  });

  it('after the grace period requeues in-flight jobs at once, for another supervisor to finish before the lease would expire', async () => {
    h = world();
    const started = gate();
    let reason: string | undefined;
    const stuck = defineJob({
      name: 'j',
      work: async ({ signal }) => {
        signal.addEventListener('abort', () => (reason = (signal.reason as { reason?: string }).reason));
        started.open();
        return untilAborted(signal);
      },
    });
    const client = h.client({ jobs: [stuck] });
    // A long lease: if the job were left to expire, the second supervisor could not get it in time.
    const a = await h.started({ jobs: [stuck], leaseMs: 20_000, heartbeatMs: 5_000 });
    const id = await client.enqueue('j', null);
    await started.promise;
    const t0 = Date.now();
    const res = await a.stop({ graceMs: 200 });
    const stopMs = Date.now() - t0;
    assert.deepEqual(res, { forced: true, requeued: 1 });
    assert.equal(reason, 'shutdown');
    assert.ok(stopMs < 2000, `stop took ${stopMs} ms with a 200 ms grace`);
    const rec = await client.get(id);
    assert.equal(rec?.status, 'queued');
    assert.equal(await h.indexScore('active', id), null, 'no longer leased');
    assert.equal(rec?.attempts, 1, 'a shutdown requeue does not use an attempt');

    const finisher = defineJob({ name: 'j', work: () => 'finished elsewhere' });
    await h.started({ jobs: [finisher], leaseMs: 20_000, heartbeatMs: 5_000 });
    const done = await client.waitForResult(id, { timeoutMs: 5000 });
    assert.equal(done.status, 'done');
    assert.equal(done.output, 'finished elsewhere');
    assert.ok(Date.now() - t0 < 5000, 'picked up long before the 20 s lease would have passed');
    const types = (await client.events(id)).map((e) => e.type);
    assert.deepEqual(types, ['enqueued', 'claimed', 'requeued', 'claimed', 'done']);
  });

  it('puts a shutdown-requeued job back ahead of jobs enqueued after it', async () => {
    h = world();
    const started = gate();
    const order: string[] = [];
    const first = defineJob({
      name: 'j',
      work: async ({ signal }) => {
        started.open();
        return untilAborted(signal);
      },
    });
    const client = h.client({ jobs: [first] });
    const a = await h.started({ jobs: [first], concurrency: 1 });
    const id = await client.enqueue('j', 'old');
    await started.promise;
    await client.enqueue('j', 'new');
    await a.stop({ graceMs: 50 });
    await eventually(async () => (await client.get(id))?.status === 'queued');
    const recorder = defineJob({ name: 'j', work: ({ input }: { input: string }) => void order.push(input) });
    await h.started({ jobs: [recorder], concurrency: 1 });
    await eventually(() => order.length === 2);
    assert.deepEqual(order, ['old', 'new']);
  });
});
