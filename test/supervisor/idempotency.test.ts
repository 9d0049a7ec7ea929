import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';

describeOnEachStore('idempotency and batches', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  it("returns the first job's id for a repeated idempotencyKey, and runs it once", async () => {
    h = world();
    let runs = 0;
    const job = defineJob({ name: 'i', work: ({ input }: { input: number }) => (runs++, input) });
    const client = h.client({ jobs: [job] });
    const first = await client.enqueue('i', 1, { idempotencyKey: 'order-42' });
    const again = await client.enqueue('i', 2, { idempotencyKey: 'order-42' });
    const racing = await Promise.all(
      Array.from({ length: 5 }, (_, i) => client.enqueue('i', 10 + i, { idempotencyKey: 'order-42' })),
    );
    assert.equal(again, first);
    assert.ok(racing.every((id) => id === first));
    const other = await client.enqueue('i', 3, { idempotencyKey: 'order-43' });
    assert.notEqual(other, first);
    assert.equal((await client.list({ status: 'queued' })).jobs.length, 2);
    await h.started({ jobs: [job] });
    const rec = await client.waitForResult(first, { timeoutMs: 5000 });
    assert.equal(rec.output, 1, "the first enqueue's input is the one that ran");
    await client.waitForResult(other, { timeoutMs: 5000 });
    assert.equal(runs, 2);
    // Still deduped after the job finished.
    assert.equal(await client.enqueue('i', 4, { idempotencyKey: 'order-42' }), first);
  });

  it('dedupes within one enqueueMany batch too', async () => {
    h = world();
    const client = h.client({ jobs: [defineJob({ name: 'i', work: () => 1 })] });
    const ids = await client.enqueueMany([
      { machine: 'i', input: 1, options: { idempotencyKey: 'k' } },
      { machine: 'i', input: 2, options: { idempotencyKey: 'k' } },
      { machine: 'i', input: 3 },
    ]);
    assert.equal(ids[0], ids[1]);
    assert.notEqual(ids[2], ids[0]);
    assert.equal((await client.list({ status: 'queued' })).jobs.length, 2);
  });

  it('enqueueMany stores a batch in one round trip, in order, across queues and options', async () => {
    h = world();
    const client = h.client({ jobs: [defineJob({ name: 'm', work: () => 1 })] });
    const calls: number[] = [];
    const orig = h.store.enqueue.bind(h.store);
    h.store.enqueue = (queue, jobs) => {
      calls.push(jobs.length);
      return orig(queue, jobs);
    };
    const ids = await client.enqueueMany([
      ...Array.from({ length: 50 }, (_, i) => ({ machine: 'm', input: i })),
      { machine: 'm', input: 'hi', options: { priority: 'high' as const } },
      { machine: 'm', input: 'later', options: { delayMs: 60_000 } },
      { machine: 'm', input: 'other', options: { queue: 'q2' } },
    ]);
    assert.equal(ids.length, 53);
    assert.equal(new Set(ids).size, 53);
    assert.deepEqual(
      calls.sort((a, b) => a - b),
      [1, 52],
      'one store call per queue',
    );
    for (const [i, id] of ids.slice(0, 50).entries()) assert.equal((await client.get(id))?.input, i);
    assert.equal((await client.get(ids[50]!))?.priority, 'high');
    assert.ok((await client.get(ids[51]!))?.runAt);
    assert.equal((await client.get(ids[52]!))?.queue, 'q2');
    assert.deepEqual(await client.enqueueMany([]), []);
  });
});
