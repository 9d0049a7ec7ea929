// Client.enqueue calls made in one tick reach the store as ONE enqueue per queue (EnqueueBatcher):
// the path every enqueue takes (Client.prepareOne) must not make a caller wait a tick the others
// do not, or a burst would turn into one store call per job.
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client, MemoryStore, defineJob } from '../../src/index.js';

const noop = defineJob({ name: 'noop', work: async () => null });

describe('enqueue batching', () => {
  let store: MemoryStore;
  let calls: { queue: string; jobs: number }[];
  beforeEach(() => {
    store = new MemoryStore();
    calls = [];
    const enqueue = store.enqueue.bind(store);
    store.enqueue = (queue, jobs) => {
      calls.push({ queue, jobs: jobs.length });
      return enqueue(queue, jobs);
    };
  });
  afterEach(() => store.close());

  it('sends the enqueues of one tick as one store call per queue', async () => {
    const client = new Client({ store, jobs: [noop] });
    await client.enqueue('noop', undefined); // the first call loads what later ones find cached
    calls.length = 0;
    const ids = await Promise.all([
      ...Array.from({ length: 20 }, () => client.enqueue('noop', undefined)),
      ...Array.from({ length: 5 }, () => client.enqueue('noop', undefined, { queue: 'other' })),
    ]);
    assert.equal(new Set(ids).size, 25);
    assert.deepEqual(
      calls.sort((a, b) => a.queue.localeCompare(b.queue)),
      [
        { queue: 'default', jobs: 20 },
        { queue: 'other', jobs: 5 },
      ],
    );
  });

  it('batches per partition on a partitioned queue', async () => {
    const client = new Client({ store, jobs: [noop] });
    await client.configureQueue('wide', { partitions: 2 });
    await client.enqueue('noop', undefined, { queue: 'wide' });
    calls.length = 0;
    await Promise.all(Array.from({ length: 10 }, () => client.enqueue('noop', undefined, { queue: 'wide' })));
    assert.deepEqual(calls.map((c) => c.jobs).sort(), [5, 5]);
    assert.deepEqual(calls.map((c) => c.queue).sort(), ['wide#0', 'wide#1']);
  });
});
