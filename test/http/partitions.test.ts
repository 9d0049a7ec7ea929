// PUT /queues/:queue/partitions and GET /queues on a partitioned queue (docs/partitions.md), and
// a partitionKey given through POST /jobs and `machinist enqueue --partition-key`.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Client, defineJob } from '../../src/index.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { startApi, type Api } from '../support/api.js';
import { runCli } from '../support/cli.js';
import { partitionOfKey } from '../../src/store/partitions.js';

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

  it('routes by the partitionKey of POST /jobs and of machinist enqueue --partition-key', async () => {
    api = await startApi(redis);
    const noop = defineJob({ name: 'noop', work: () => 1 });
    const client = new Client({ store: api.store, jobs: [noop] });
    await client.configureQueue('pay', { partitions: 4 });
    // The CLI (no --jobs) takes a machine a supervisor has published.
    await api.store.registerMachines([{ name: 'noop', versions: [1], hasLoad: false }]);
    const want = partitionOfKey('cust-7', 4);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await api.call('POST', '/jobs', {
        body: { machine: 'noop', input: i, queue: 'pay', partitionKey: 'cust-7' },
      });
      assert.equal(res.status, 202, res.text);
      ids.push(res.json.job_id as string);
    }
    const cli = await runCli([
      ...['--redis', redis.url, '--prefix', api.prefix, 'enqueue', 'noop', '3'],
      ...['--queue', 'pay', '--partition-key', 'cust-7'],
    ]);
    assert.equal(cli.code, 0, cli.stderr);
    ids.push(cli.stdout.trim());
    for (const id of ids) assert.match(id, new RegExp(`^${want}~`));
    const other = await api.call('POST', '/jobs', {
      body: { machine: 'noop', input: 9, queue: 'pay', partitionKey: 'cust-8' },
    });
    assert.match(other.json.job_id as string, new RegExp(`^${partitionOfKey('cust-8', 4)}~`));
    const bad = await api.call('POST', '/jobs', { body: { machine: 'noop', input: 1, partitionKey: '' } });
    assert.equal(bad.status, 400, bad.text);
    assert.match(bad.text, /partitionKey/);
    client.close();
  });
});
