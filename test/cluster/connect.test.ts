// RedisStore on a private 3-master Redis Cluster (test/support/redisCluster.ts): the queues of one
// test land on three different masters, and each path that opens connections of its own works
// there: the supervisors' blocking wait for work, the result watchers' blocking reads, the
// control channel (sharded pub/sub: a cancel reaches a running job on another shard), the client's
// fail-fast connection, and a ready ioredis Cluster given instead of options.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { RedisStore, createServer, defineJob } from '../../src/index.js';
import { queueOverview } from '../../src/dashboard/queueOverview.js';
import { eventually } from '../support/redis.js';
import { clusterSuite } from '../support/redisCluster.js';

describe('RedisStore on a 3-master Redis Cluster', () => {
  const suite = clusterSuite();

  it('runs jobs on three queues served by three different masters', async () => {
    const { cluster, queues } = suite;
    const h = suite.harness();
    const job = defineJob({ name: 'echo', work: ({ input, queue }) => `${queue}:${String(input)}` });
    for (const queue of queues) await h.started({ jobs: [job], queue });
    const client = h.client({ jobs: [job] });
    const owners = new Set(await Promise.all(queues.map((q) => cluster.ownerOf(`{${q}}`))));
    assert.equal(owners.size, 3, 'each queue is on a master of its own');
    for (const queue of queues) {
      const id = await client.enqueue('echo', 'x', { queue });
      const done = await client.waitForResult(id, { queue, timeoutMs: 10_000 });
      assert.equal(done.status, 'done');
      assert.equal(done.output, `${queue}:x`);
    }
  });

  it("tells a running job on another shard of its cancel over its queue's control channel", async () => {
    const { queues } = suite;
    const h = suite.harness();
    const queue = queues[2]!;
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const job = defineJob({
      name: 'hang',
      timeoutMs: 60_000,
      work: ({ signal }) =>
        new Promise((_, reject) => {
          started();
          signal.addEventListener('abort', () => reject(new Error(String(signal.reason))));
        }),
    });
    // A heartbeat far away: only the control message can stop the job within the test.
    await h.started({ jobs: [job], queue, heartbeatMs: 60_000, leaseMs: 120_000 });
    const client = h.client({ jobs: [job] });
    const id = await client.enqueue('hang', null, { queue });
    await running;
    assert.equal(await client.cancel(id, { queue }), true);
    const ended = await client.waitForResult(id, { queue, timeoutMs: 10_000 });
    assert.equal(ended.status, 'cancelled');
  });

  it('finds a job by id alone on whichever shard holds its queue', async () => {
    const { queues } = suite;
    const h = suite.harness();
    const job = defineJob({ name: 'noop', work: () => null });
    const client = h.client({ jobs: [job] });
    const ids = await Promise.all(queues.map((queue) => client.enqueue('noop', null, { queue })));
    for (const [i, id] of ids.entries()) assert.equal((await client.get(id))?.queue, queues[i]);
    assert.equal(await client.cancel(ids[1]!), true);
    assert.equal((await client.get(ids[1]!))?.status, 'cancelled');
  });

  it('lists every queue on every master: the HTTP /queues counts, the dashboard overview, GET /jobs per queue', async () => {
    const { queues } = suite;
    const h = suite.harness();
    const job = defineJob({ name: 'noop', work: () => null });
    const client = h.client({ jobs: [job] });
    for (const [i, queue] of queues.entries())
      for (let n = 0; n <= i; n++) await client.enqueue('noop', null, { queue });
    const app = createServer({ store: h.store, jobs: [job], logger: false, auth: false });
    try {
      const res = await app.inject({ method: 'GET', url: '/queues' });
      assert.equal(res.statusCode, 200, res.body);
      const listed = res.json<{ queues: { name: string; counts: { queued: number } }[] }>().queues;
      assert.deepEqual(
        listed.map((q) => [q.name, q.counts.queued]),
        [...queues].sort().map((q) => [q, queues.indexOf(q) + 1]),
      );
      for (const [i, queue] of queues.entries()) {
        const page = await app.inject({ method: 'GET', url: `/jobs?queue=${queue}` });
        assert.equal(page.json<{ jobs: unknown[] }>().jobs.length, i + 1, queue);
      }
    } finally {
      await app.close();
    }
    const overview = await queueOverview(h.store);
    assert.deepEqual(
      overview.queues.map((q) => q.queue),
      [...queues].sort(),
    );
  });

  it("reads the eviction policy of every master: one evicting master is the store's answer", async () => {
    const { cluster } = suite;
    const h = suite.harness();
    assert.equal(await h.store.evictionPolicy(), 'noeviction');
    const last = cluster.cluster.nodes.at(-1)!;
    const node = new Redis({ host: '127.0.0.1', port: last.port });
    try {
      await node.config('SET', 'maxmemory-policy', 'allkeys-lru');
      assert.equal(await h.store.evictionPolicy(), 'allkeys-lru');
    } finally {
      await node.config('SET', 'maxmemory-policy', 'noeviction');
      node.disconnect();
    }
  });

  it('runs on a ready ioredis Cluster given as `cluster`', async () => {
    const { cluster, queues } = suite;
    const given = cluster.client();
    const store = new RedisStore({ cluster: given, prefix: `given${process.pid}` });
    try {
      const job = defineJob({ name: 'noop', work: () => 'ok' });
      const h = suite.harness();
      const worker = h.supervisor({ jobs: [job], store, queue: queues[1]! });
      await worker.start();
      const client = h.client({ jobs: [job], store });
      const id = await client.enqueue('noop', null, { queue: queues[1]! });
      const done = await eventually(async () => {
        const rec = await client.get(id, { queue: queues[1]! });
        return rec?.status === 'done' ? rec : null;
      }, 10_000);
      assert.equal(done?.output, 'ok');
      await worker.stop();
    } finally {
      await store.close();
    }
  });
});
