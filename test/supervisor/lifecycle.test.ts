import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { eventually } from '../support/redis.js';
import { gate } from '../support/harness.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';

describeOnEachStore('lifecycle', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  it('moves a job queued -> loading -> working -> done and stores the final snapshot', async () => {
    h = world();
    const loadGate = gate();
    const workGate = gate();
    const job = defineJob({
      name: 'phased',
      load: async ({ input }: { input: { n: number } }) => {
        await loadGate.promise;
        return input.n * 10;
      },
      work: async ({ loaded }) => {
        await workGate.promise;
        return { total: loaded + 1 };
      },
    });
    const client = h.client({ jobs: [job] });
    const id = await client.enqueue('phased', { n: 4 });
    const queued = await client.get(id);
    assert.equal(queued?.status, 'queued');
    assert.equal(queued?.machine, 'phased');
    assert.equal(queued?.attempts, 0, 'not run yet');

    await h.started({ jobs: [job] });
    await eventually(async () => (await client.get(id))?.status === 'loading');
    loadGate.open();
    await eventually(async () => (await client.get(id))?.status === 'working');
    workGate.open();
    const done = await client.waitForResult(id, { timeoutMs: 5000 });
    assert.equal(done.status, 'done');
    assert.deepEqual(done.output, { total: 41 });
    assert.equal(done.state, 'done');
    assert.ok(done.finishedAt && done.finishedAt >= done.createdAt);
    const snap = done.snapshot as { l: { value: string; context: { attempt: number; maxAttempts: number } } };
    assert.equal(snap.l.value, 'done');
    assert.equal(snap.l.context.attempt, 1);
    assert.equal(snap.l.context.maxAttempts, 4);
    const types = (await client.events(id)).map((e) => e.type);
    assert.deepEqual(types, ['enqueued', 'claimed', 'state', 'done']);
  });

  it('hands work a stable idempotency key and the job id', async () => {
    h = world();
    const seen: { jobId: string; key: string; attempt: number }[] = [];
    const job = defineJob({
      name: 'keyed',
      work: ({ jobId, idempotencyKey, attempt }) => {
        seen.push({ jobId, key: idempotencyKey, attempt });
        return 'ok';
      },
    });
    const client = h.client({ jobs: [job] });
    await h.started({ jobs: [job] });
    const id = await client.enqueue('keyed', null);
    await client.waitForResult(id, { timeoutMs: 5000 });
    assert.deepEqual(seen, [{ jobId: id, key: `${id}:working:1`, attempt: 1 }]);
  });
});
