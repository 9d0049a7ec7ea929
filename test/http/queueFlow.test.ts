// POST /queues/:queue/pause|resume, GET and PUT /queues/:queue/limits (docs/flow-control.md),
// on a partitioned queue: every partition is paused and limited, the view sums them.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { defineJob } from '../../src/index.js';
import { partitionOfKey } from '../../src/store/partitions.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { startApi, type Api } from '../support/api.js';

describe('HTTP queue flow controls', () => {
  let redis: TestRedis;
  let api: Api;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => api.close());

  it('pauses and resumes every partition, sets limits, and shows use per key', async () => {
    api = await startApi(redis, { jobs: [defineJob({ name: 'echo', work: ({ input }) => input })] });
    assert.equal((await api.call('PUT', '/queues/q/partitions', { body: { partitions: 2 } })).status, 200);
    const paused = await api.call('POST', '/queues/q/pause');
    assert.equal(paused.status, 200, paused.text);
    assert.deepEqual(paused.json, { queue: 'q', paused: true });
    for (const p of ['q', 'q#0', 'q#1']) assert.equal((await api.store.queueFlow(p)).paused, true);
    const put = await api.call('PUT', '/queues/q/limits', {
      body: { concurrency: { perKey: 2, total: 10 } },
    });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.json.paused, true);
    assert.deepEqual(put.json.limits, { total: 10, perKey: 2 });
    assert.deepEqual(
      put.json.partitions.map((p: { queue: string }) => p.queue),
      ['q', 'q#0', 'q#1'],
    );
    const enq = await api.call('POST', '/jobs', {
      body: { machine: 'echo', input: {}, queue: 'q', concurrencyKey: 'tenant-a' },
    });
    assert.equal(enq.status, 202, enq.text);
    assert.equal((await api.call('POST', '/queues/q/resume')).json.paused, false);
    const got = await api.call('GET', '/queues/q/limits');
    assert.equal(got.status, 200, got.text);
    assert.equal(got.json.paused, false);
    // The job carries its key (stored as `ck`) in the partition its key routes it to.
    const id = enq.json.job_id as string;
    const part = `q#${partitionOfKey('tenant-a', 2)}`;
    const raw = new Redis(redis.url);
    try {
      assert.equal(await raw.hget(`${api.prefix}:{${part}}:job:${id}`, 'ck'), 'tenant-a');
    } finally {
      raw.disconnect();
    }
    const bad = await api.call('PUT', '/queues/q/limits', { body: { concurrency: { perKey: 0 } } });
    assert.equal(bad.status, 400, bad.text);
    const cleared = await api.call('PUT', '/queues/q/limits', { body: { concurrency: { total: null } } });
    assert.deepEqual(cleared.json.limits, { perKey: 2 });
  });

  it('sets key throttles with a mode, and pauses and resumes one key on every partition', async () => {
    api = await startApi(redis, { jobs: [defineJob({ name: 'echo', work: ({ input }) => input })] });
    assert.equal((await api.call('PUT', '/queues/q/partitions', { body: { partitions: 2 } })).status, 200);
    const put = await api.call('PUT', '/queues/q/limits', {
      body: {
        rateLimit: { limit: 5, perMs: 1000, mode: 'skip' },
        keyRateLimit: { limit: 1, perMs: 500, burst: 2 },
      },
    });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.json.limits, {
      rateLimit: { limit: 5, perMs: 1000, burst: 0, mode: 'skip' },
      keyRateLimit: { limit: 1, perMs: 500, burst: 2 },
    });
    const bad = await api.call('PUT', '/queues/q/limits', {
      body: { keyRateLimit: { limit: 1, perMs: 5, mode: 'drop' } },
    });
    assert.equal(bad.status, 400, bad.text);
    const paused = await api.call('POST', '/queues/q/keys/tenant%20a/pause');
    assert.equal(paused.status, 200, paused.text);
    assert.deepEqual(paused.json, { queue: 'q', key: 'tenant a', paused: true });
    for (const p of ['q', 'q#0', 'q#1'])
      assert.equal((await api.store.queueFlow(p)).keys.find((k) => k.key === 'tenant a')?.paused, true);
    const got = await api.call('GET', '/queues/q/limits');
    assert.deepEqual(got.json.keys, [{ key: 'tenant a', running: 0, waiting: 0, paused: true }]);
    assert.equal((await api.call('POST', '/queues/q/keys/tenant%20a/resume')).json.paused, false);
    assert.deepEqual((await api.call('GET', '/queues/q/limits')).json.keys, []);
    const gates = await api.call('PUT', '/queues/q/limits', {
      body: {
        machines: { echo: { shared: 'stripe' }, other: { concurrency: 2 } },
        shared: { stripe: { concurrency: 3 } },
      },
    });
    assert.equal(gates.status, 200, gates.text);
    assert.deepEqual(gates.json.limits.gates, { 's:stripe': 3, 'm:other': 2 });
    assert.deepEqual(gates.json.limits.machineGates, { echo: 's:stripe', other: 'm:other' });
    const mrate = await api.call('PUT', '/queues/q/limits', {
      body: { machines: { echo: { rateLimit: { limit: 4, perMs: 1000, mode: 'skip' } } } },
    });
    assert.equal(mrate.status, 200, mrate.text);
    assert.deepEqual(mrate.json.limits.machineRateLimits, {
      echo: { limit: 4, perMs: 1000, burst: 0, mode: 'skip' },
    });
    assert.equal(
      mrate.json.limits.machineGates.echo,
      's:stripe',
      "a throttle alone keeps the machine's gate",
    );
    for (const p of ['q#0', 'q#1'])
      assert.deepEqual(Object.keys((await api.store.queueFlow(p)).limits.machineRateLimits ?? {}), ['echo']);
    const badRate = await api.call('PUT', '/queues/q/limits', {
      body: { machines: { echo: { rateLimit: { limit: 0, perMs: 1000 } } } },
    });
    assert.equal(badRate.status, 400, badRate.text);
    const fair = await api.call('PUT', '/queues/q/limits', {
      body: { concurrency: { fairness: 'roundRobin' } },
    });
    assert.equal(fair.status, 200, fair.text);
    assert.equal(fair.json.limits.fairness, 'roundRobin');
    for (const p of ['q', 'q#0', 'q#1'])
      assert.equal((await api.store.queueFlow(p)).limits.fairness, 'roundRobin');
    const badFair = await api.call('PUT', '/queues/q/limits', {
      body: { concurrency: { fairness: 'random' } },
    });
    assert.equal(badFair.status, 400, badFair.text);
    const fifo = await api.call('PUT', '/queues/q/limits', { body: { concurrency: { fairness: 'fifo' } } });
    assert.equal(fifo.json.limits.fairness, undefined);
  });
});
