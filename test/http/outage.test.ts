// Redis down: every route answers 503 REDIS_UNAVAILABLE within a bound (the store's
// commandTimeoutMs, 400 ms as `machinist serve` sets it), never hangs, never answers 202 for a
// job it did not store, and the server keeps answering; when Redis is back, so is the API.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { startApi, type Api } from '../support/api.js';

const echo = defineJob({ name: 'echo', work: () => 1 });
/** Generous for a loaded 2-core box; a store waiting out its default 5 s would still fail it. */
const BOUND_MS = 3000;

describe('HTTP API with Redis down', () => {
  let redis: TestRedis;
  let api: Api;
  before(async () => {
    redis = await startRedis();
    api = await startApi(redis, { jobs: [echo], commandTimeoutMs: 400 });
  });
  after(async () => {
    await api.close();
    await redis.stop();
  });

  it('answers 503 within a bound on every route while Redis is stopped, and recovers after', async (t) => {
    if (!redis.private) return t.skip('needs a private redis-server to stop');
    const before = await api.call('POST', '/jobs', { body: { machine: 'echo', input: { before: true } } });
    assert.equal(before.status, 202);
    const id = before.json.job_id as string;

    await redis.stop();
    const routes: [string, string, unknown?][] = [
      ['POST', '/jobs', { machine: 'echo', input: { during: true } }],
      ['POST', '/jobs?wait=5s', { machine: 'echo', input: { during: true } }],
      ['GET', `/jobs/${id}`],
      ['GET', `/jobs/${id}/events`],
      ['GET', '/jobs'],
      ['POST', `/jobs/${id}/cancel`],
      ['POST', `/jobs/${id}/events`, { event: { type: 'X' } }],
      ['GET', '/dead-letters'],
      ['POST', `/dead-letters/${id}/retry`],
      ['DELETE', `/dead-letters/${id}`],
      ['GET', '/machines'],
      ['GET', '/events'],
      ['GET', `/jobs/${id}/stream`],
      ['GET', '/healthz'],
    ];
    for (const [method, path, body] of routes) {
      const started = Date.now();
      const res = await api.call(method, path, { body });
      const took = Date.now() - started;
      assert.equal(res.status, 503, `${method} ${path}: ${res.status} ${res.text}`);
      assert.equal(res.json.error.code, 'REDIS_UNAVAILABLE');
      assert.ok(took < BOUND_MS, `${method} ${path} took ${took} ms`);
    }

    // Empty (the private server keeps no data): any refused enqueue that landed late would show.
    await redis.restart();
    await eventually(async () => (await api.call('GET', '/healthz')).status === 200, 15_000, 100);
    const page = await api.call('GET', '/jobs');
    assert.deepEqual(page.json.jobs, [], 'no enqueue refused during the outage landed later');
    const after = await api.call('POST', '/jobs', { body: { machine: 'echo' } });
    assert.equal(after.status, 202);
  });
});
