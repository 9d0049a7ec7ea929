// Redis only: the server's maxmemory-policy.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RedisStore, Supervisor, defineJob } from '../../src/index.js';
import { startRedis, uniquePrefix, type TestRedis } from '../support/redis.js';

const noop = defineJob({ name: 'noop', work: async () => null });

describe('Redis eviction policy', () => {
  let redis: TestRedis;
  before(async () => (redis = await startRedis(['--maxmemory-policy', 'allkeys-lru'])));
  after(async () => redis.stop());

  // A server of your own (REDIS_URL) is not reconfigured: these need the private one.
  const skip = process.env.REDIS_URL ? 'needs a private redis-server' : false;

  it(
    'refuses to start a supervisor on a Redis that may evict keys, naming the policy',
    { skip },
    async () => {
      const store = new RedisStore({ url: redis.url, prefix: uniquePrefix('evict') });
      const sup = new Supervisor({ store, jobs: [noop] });
      await assert.rejects(sup.start(), (err: Error & { code?: string }) => {
        assert.equal(err.code, 'EVICTING_REDIS');
        assert.match(err.message, /allkeys-lru/);
        return true;
      });
      await store.close();
    },
  );

  it('starts anyway with allowEviction: true', { skip }, async () => {
    const store = new RedisStore({ url: redis.url, prefix: uniquePrefix('evict') });
    const sup = new Supervisor({ store, jobs: [noop], allowEviction: true });
    await sup.start();
    await sup.stop();
    await store.close();
  });
});
