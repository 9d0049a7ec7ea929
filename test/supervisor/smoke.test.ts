import { it } from 'node:test';
import assert from 'node:assert/strict';
import { Client, Supervisor, defineJob } from '../../src/index.js';
import { describeOnEachStore } from '../support/eachStore.js';

describeOnEachStore('smoke', (world) => {
  it('runs a job from enqueue to done and stores its output', async () => {
    const h = world();
    const { store } = h;
    const add = defineJob({
      name: 'add',
      work: async ({ input }: { input: { a: number; b: number } }) => input.a + input.b,
    });
    const sup = new Supervisor({
      store,
      jobs: [add],
      concurrency: 2,
      leaseMs: 1000,
      heartbeatMs: 200,
      reaperIntervalMs: 200,
    });
    await sup.start();
    const client = new Client({ store, jobs: [add] });
    const id = await client.enqueue('add', { a: 2, b: 3 });
    const job = await client.waitForResult(id, { timeoutMs: 5000 });
    assert.equal(job.status, 'done');
    assert.equal(job.output, 5);
    const log = await client.events(id);
    assert.deepEqual(
      log.map((e) => e.type),
      ['enqueued', 'claimed', 'done'],
    );
    await sup.stop();
    client.close();
    await h.close(); // closes the store
  });
});
