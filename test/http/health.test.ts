// GET /healthz says what it checked: the store it runs on, and for Redis that Redis answered.
// A server on the embedded MemoryStore must not claim a Redis it never had.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { createServer, MemoryStore } from '../../src/index.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { startApi } from '../support/api.js';

describe('GET /healthz', () => {
  let redis: TestRedis;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());

  it('names the Redis store and that Redis is reachable, without a token', async () => {
    const api = await startApi(redis);
    try {
      const res = await api.call('GET', '/healthz', { token: null });
      assert.equal(res.status, 200);
      assert.deepEqual(res.json, { status: 'ok', store: 'redis', redis: 'reachable' });
    } finally {
      await api.close();
    }
  });

  it('names the memory store, and claims no Redis, on a server over a MemoryStore', async () => {
    const store = new MemoryStore();
    const app = createServer({ store, auth: false, logger: pino({ level: 'silent' }) });
    try {
      const res = await app.inject({ method: 'GET', url: '/healthz' });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { status: 'ok', store: 'memory' });
    } finally {
      await app.close();
      await store.close();
    }
  });
});
