// POST /jobs with `record` (docs/concepts.md, Minimal records): a minimal job is stored with the
// flag and runs as any other; a value other than 'full' or 'minimal' is refused, naming the field.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { defineJob } from '../../src/index.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { startApi, type Api } from '../support/api.js';

describe('HTTP enqueue with a record mode', () => {
  let redis: TestRedis;
  let api: Api;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => api.close());

  it("stores a job asked for with record 'minimal' as a minimal record, and refuses another mode", async () => {
    api = await startApi(redis, { jobs: [defineJob({ name: 'echo', work: ({ input }) => input })] });
    const enq = await api.call('POST', '/jobs', { body: { machine: 'echo', input: {}, record: 'minimal' } });
    assert.equal(enq.status, 202, enq.text);
    const raw = new Redis(redis.url);
    try {
      assert.equal(await raw.hget(`${api.prefix}:{default}:job:${enq.json.job_id as string}`, 'rm'), '1');
    } finally {
      raw.disconnect();
    }
    const bad = await api.call('POST', '/jobs', { body: { machine: 'echo', input: {}, record: 'tiny' } });
    assert.equal(bad.status, 400, bad.text);
    assert.match(bad.text, /record/);
  });
});
