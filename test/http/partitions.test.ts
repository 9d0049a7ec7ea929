// PUT /queues/:queue/partitions and GET /queues on a partitioned queue (docs/partitions.md).

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client, defineJob } from '../../src/index.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { startApi, type Api } from '../support/api.js';

describe('HTTP partitions', () => {
  let redis: TestRedis;
  let api: Api;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => api.close());

  it('splits a queue, lists it once with its partitions, and refuses a change while it holds jobs', async () => {
    api = await startApi(redis);
    const put = await api.call('PUT', '/queues/q/partitions', { body: { partitions: 2 } });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.json, { queue: 'q', partitions: 2 });
    const client = new Client({ store: api.store, jobs: [defineJob({ name: 'noop', work: () => 1 })] });
    for (let i = 0; i < 4; i++) await client.enqueue('noop', null, { queue: 'q' });
    const got = await api.call('GET', '/queues');
    assert.equal(got.status, 200, got.text);
    assert.deepEqual(
      got.json.queues.map((q: { name: string; counts: { queued: number } }) => [q.name, q.counts.queued]),
      [['q', 4]],
    );
    assert.deepEqual(
      got.json.queues[0].partitions.map((p: { name: string }) => p.name),
      ['q#0', 'q#1'],
    );
    const refused = await api.call('PUT', '/queues/q/partitions', { body: { partitions: 3 } });
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.json.error.code, 'PARTITIONS_IN_USE');
    const bad = await api.call('PUT', '/queues/q/partitions', { body: { partitions: 0 } });
    assert.equal(bad.status, 400, bad.text);
    client.close();
  });
});
