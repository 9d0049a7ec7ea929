// Partitioned queues (docs/partitions.md): configureQueue keeps the count in the store; the
// client routes enqueues round robin or by key, and finds a job's partition from its id alone;
// a supervisor serving the queue serves every partition; children and a cascade cancel cross
// partitions through the outbox.

import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { assign, setup } from 'xstate';
import { defineJob, definePipeline, fanOut, PartitionsInUseError, ValidationError } from '../../src/index.js';
import { partitionOfId, partitionQueue } from '../../src/store/partitions.js';
import { queueTotals } from '../../src/store/queueTotals.js';
import { queueOverview } from '../../src/dashboard/queueOverview.js';
import { eventually } from '../support/redis.js';
import { untilAborted } from '../support/harness.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';

describeOnEachStore('partitioned queues', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  const noop = defineJob({ name: 'noop', work: ({ input }: { input: string }) => input });

  /** How many jobs each partition of `queue` holds (queued, not yet run). */
  const perPartition = async (queue: string, n: number) => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push((await h.store.counts(partitionQueue(queue, i))).queued);
    return out;
  };

  it('spreads enqueues round robin, and an id names its partition', async () => {
    h = world();
    const client = h.client({ jobs: [noop] });
    await client.configureQueue('q', { partitions: 3 });
    const ids: string[] = [];
    for (let i = 0; i < 9; i++) ids.push(await client.enqueue('noop', `j${i}`, { queue: 'q' }));
    assert.deepEqual(await perPartition('q', 3), [3, 3, 3]);
    assert.equal((await h.store.counts('q')).queued, 0);
    for (const id of ids) {
      const p = partitionOfId(id, 3);
      assert.match(id, new RegExp(`^${p}~`));
      // get reaches it through the queue's name alone, and the record says where it is stored.
      const rec = await client.get(id, { queue: 'q' });
      assert.equal(rec?.queue, partitionQueue('q', p));
    }
  });

  it('lists and counts a partitioned queue as one queue, summed over its partitions', async () => {
    h = world();
    const client = h.client({ jobs: [noop] });
    await client.configureQueue('q', { partitions: 3 });
    const ids = new Set<string>();
    for (let i = 0; i < 7; i++) ids.add(await client.enqueue('noop', `j${i}`, { queue: 'q' }));
    await client.enqueue('noop', 'other', { queue: 'other' });
    // Listed in pages of 2 across the partitions: every job once.
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await client.list({ queue: 'q', limit: 2, ...(cursor ? { cursor } : {}) });
      seen.push(...page.jobs.map((j) => j.id));
      if (page.cursor === null) break;
      cursor = page.cursor;
    }
    assert.deepEqual([...seen].sort(), [...ids].sort());
    const totals = await queueTotals(h.store);
    assert.deepEqual([...totals.keys()], ['other', 'q']);
    assert.equal(totals.get('q')!.counts.queued, 7);
    assert.deepEqual([...totals.get('q')!.parts.keys()], ['q#0', 'q#1', 'q#2']);
    const overview = await queueOverview(h.store);
    assert.deepEqual(
      overview.queues.map((o) => [o.queue, o.counts.queued]),
      [
        ['other', 1],
        ['q', 7],
      ],
    );
  });

  it('keeps one partition key in one partition, in order', async () => {
    h = world();
    const client = h.client({ jobs: [noop] });
    await client.configureQueue('q', { partitions: 4 });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++)
      ids.push(await client.enqueue('noop', `c${i}`, { queue: 'q', partitionKey: 'cust-7' }));
    const parts = new Set(ids.map((id) => partitionOfId(id, 4)));
    assert.equal(parts.size, 1);
    const order: string[] = [];
    const rec = defineJob({ name: 'noop', work: ({ input }: { input: string }) => void order.push(input) });
    await h.started({ jobs: [rec], queues: ['q'], concurrency: 1 });
    await eventually(() => order.length === 6);
    assert.deepEqual(order, ['c0', 'c1', 'c2', 'c3', 'c4', 'c5']);
  });

  it('routes an idempotency key to one partition, so it dedupes there', async () => {
    h = world();
    const client = h.client({ jobs: [noop] });
    await client.configureQueue('q', { partitions: 4 });
    const first = await client.enqueue('noop', 'a', { queue: 'q', idempotencyKey: 'k1' });
    for (let i = 0; i < 5; i++)
      assert.equal(await client.enqueue('noop', 'a', { queue: 'q', idempotencyKey: 'k1' }), first);
    const held = await perPartition('q', 4);
    assert.equal(
      held.reduce((a, b) => a + b, 0),
      1,
    );
  });

  it('refuses a concurrency key with a different dedupe or idempotency key (naming both) unless a partitionKey says the route', async () => {
    h = world();
    const client = h.client({ jobs: [noop] });
    await client.configureQueue('q', { partitions: 4 });
    const refused = async (options: Parameters<typeof client.enqueue>[2]) => {
      await assert.rejects(
        client.enqueue('noop', 'a', { queue: 'q', ...options }),
        (err: ValidationError) => {
          assert.ok(err instanceof ValidationError);
          assert.equal(err.code, 'INVALID_INPUT');
          assert.equal(err.field, 'partitionKey');
          assert.equal(err.queue, 'q');
          assert.match(err.message, /concurrencyKey 'tenant-a'/);
          assert.match(err.message, /(dedupe\.key|idempotencyKey) 'doc-1'/);
          return true;
        },
      );
    };
    await refused({ concurrencyKey: 'tenant-a', dedupe: { key: 'doc-1' } });
    await refused({ concurrencyKey: 'tenant-a', idempotencyKey: 'doc-1' });
    await assert.rejects(
      client.enqueueMany([
        {
          machine: 'noop',
          input: 'a',
          options: { queue: 'q', concurrencyKey: 'tenant-a', dedupe: { key: 'doc-1' } },
        },
      ]),
      ValidationError,
    );
    assert.deepEqual(await perPartition('q', 4), [0, 0, 0, 0], 'nothing was written');
    // One key for both routes alike: taken.
    await client.enqueue('noop', 'a', { queue: 'q', concurrencyKey: 'same', dedupe: { key: 'same' } });
    // A partitionKey routes: one dedupe key under two concurrency keys is one job.
    const first = await client.enqueueWithInfo('noop', 'a', {
      queue: 'q',
      partitionKey: 'doc-1',
      concurrencyKey: 'tenant-a',
      dedupe: { key: 'doc-1' },
    });
    const second = await client.enqueueWithInfo('noop', 'b', {
      queue: 'q',
      partitionKey: 'doc-1',
      concurrencyKey: 'tenant-b',
      dedupe: { key: 'doc-1' },
    });
    assert.deepEqual(second, { id: first.id, deduplicated: true });
    // A queue of one partition keeps both promises: nothing to refuse.
    const one = await client.enqueue('noop', 'a', {
      queue: 'flat',
      concurrencyKey: 'tenant-a',
      dedupe: { key: 'doc-1' },
    });
    assert.equal(
      await client.enqueue('noop', 'b', {
        queue: 'flat',
        concurrencyKey: 'tenant-b',
        dedupe: { key: 'doc-1' },
      }),
      one,
    );
  });

  it('runs every partition with one supervisor, and waitForResult finds each job', async () => {
    h = world();
    const client = h.client({ jobs: [noop] });
    await client.configureQueue('q', { partitions: 3 });
    await h.started({ jobs: [noop], queues: ['q'] });
    const ids = await Promise.all(
      Array.from({ length: 12 }, (_, i) => client.enqueue('noop', `j${i}`, { queue: 'q' })),
    );
    for (const [i, id] of ids.entries()) {
      const r = await client.waitForResult(id, { queue: 'q', timeoutMs: 20_000 });
      assert.equal(r.output, `j${i}`);
    }
  });

  it('cancels and sends to a job by id and queue name, with no lookup', async () => {
    h = world();
    const seen: string[] = [];
    const waiter = defineJob({
      name: 'waiter',
      work: async ({ signal }) => untilAborted(signal),
    });
    const client = h.client({ jobs: [waiter] });
    await client.configureQueue('q', { partitions: 2 });
    await h.started({ jobs: [waiter], queues: ['q'] });
    const id = await client.enqueue('waiter', null, { queue: 'q' });
    await eventually(async () => (await client.get(id, { queue: 'q' }))?.status === 'working');
    await client.send(id, { type: 'poke' }, { queue: 'q' }).catch((err: unknown) => seen.push(String(err)));
    assert.equal(await client.cancel(id, { queue: 'q' }), true);
    await eventually(async () => (await client.get(id, { queue: 'q' }))?.status === 'cancelled');
    assert.deepEqual(seen, []);
  });

  it('refuses to change the count while the queue holds jobs, naming the queue', async () => {
    h = world();
    const client = h.client({ jobs: [noop] });
    await client.configureQueue('q', { partitions: 2 });
    await client.configureQueue('q', { partitions: 2 }); // the same count: a no-op
    await client.enqueue('noop', 'x', { queue: 'q' });
    await assert.rejects(client.configureQueue('q', { partitions: 3 }), (err: unknown) => {
      assert.ok(err instanceof PartitionsInUseError);
      assert.equal(err.code, 'PARTITIONS_IN_USE');
      assert.equal(err.queue, 'q');
      assert.equal(err.partitions, 2);
      return true;
    });
    await assert.rejects(client.configureQueue('q', { partitions: 0 }), /partitions must be an integer/);
    await assert.rejects(client.enqueue('noop', 'x', { queue: 'q#1' }), /names a partition/);
  });

  it("relays children's endings across partitions, and a cancel reaches a tree over them", async () => {
    h = world();
    const child = defineJob({ name: 'child', work: ({ input }: { input: number }) => input * 2 });
    const slow = defineJob({ name: 'slow', work: async ({ signal }) => untilAborted(signal) });
    const parentOf = (name: string, childName: string) =>
      definePipeline({
        name,
        machine: setup({ actors: { fanOut } }).createMachine({
          id: name,
          initial: 'fanning',
          context: { out: [] as unknown[] },
          output: ({ context }) => context.out,
          states: {
            fanning: {
              invoke: {
                id: 'kids',
                src: 'fanOut',
                input: () => ({
                  jobs: [1, 2, 3, 4, 5, 6].map((n) => ({ machine: childName, input: n, queue: 'kids' })),
                }),
                onDone: { target: 'end', actions: assign({ out: ({ event }) => event.output }) },
              },
            },
            end: { type: 'final' },
          },
        }),
      });
    const parent = parentOf('parent', 'child');
    const slowParent = parentOf('slowParent', 'slow');
    const jobs = [parent, slowParent, child, slow];
    const client = h.client({ jobs });
    await client.configureQueue('kids', { partitions: 3 });
    await h.started({ jobs, queues: ['top', 'kids'], concurrency: 8 });
    const id = await client.enqueue('parent', null, { queue: 'top' });
    const done = await client.waitForResult(id, { queue: 'top', timeoutMs: 20_000 });
    assert.equal(done.status, 'done');
    assert.deepEqual(done.output, [2, 4, 6, 8, 10, 12]);
    // The children went to more than one partition (ids hashed: docs/partitions.md).
    const used = (await perPartitionDone('kids', 3)).filter((n) => n > 0).length;
    assert.ok(used >= 2, `children in ${used} partition(s)`);

    const tree = await client.enqueue('slowParent', null, { queue: 'top' });
    await eventually(async () => (await sumOver('kids', 3, 'active')) === 6);
    assert.equal(await client.cancel(tree, { queue: 'top' }), true);
    await eventually(async () => (await sumOver('kids', 3, 'cancelled')) === 6);
    assert.equal((await client.get(tree, { queue: 'top' }))?.status, 'cancelled');
  });

  const sumOver = async (queue: string, n: number, key: 'active' | 'cancelled' | 'done') => {
    let total = 0;
    for (let i = 0; i < n; i++) total += (await h.store.counts(partitionQueue(queue, i)))[key];
    return total;
  };
  const perPartitionDone = async (queue: string, n: number) => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push((await h.store.counts(partitionQueue(queue, i))).done);
    return out;
  };
});
