// Redis down: the dashboard's data routes, an event sent with a time to live, and /metrics answer within the same bound as the
// API's own (503 REDIS_UNAVAILABLE for data that lives in Redis), never hang and never 500.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { startApi, type Api } from '../support/api.js';

const echo = defineJob({ name: 'echo', work: () => 1 });
/** Generous for a loaded 2-core box; a store waiting out its default 5 s would still fail it. */
const BOUND_MS = 3000;

describe('dashboard and metrics with Redis down', () => {
  let redis: TestRedis;
  let api: Api;
  before(async () => {
    redis = await startRedis();
    api = await startApi(redis, { jobs: [echo], commandTimeoutMs: 400, dashboard: { actions: true } });
  });
  after(async () => {
    await api.close();
    await redis.stop();
  });

  it('answers 503 within a bound on every dashboard data route, and /metrics without a 5xx other than 503', async (t) => {
    if (!redis.private) return t.skip('needs a private redis-server to stop');
    const made = await api.call('POST', '/jobs', { body: { machine: 'echo', input: 1 } });
    const id = made.json.job_id as string;
    await redis.stop();
    for (const path of [
      '/dashboard/api/config',
      '/dashboard/api/overview',
      `/dashboard/api/jobs/${id}/view`,
      `/dashboard/api/jobs/${id}/children`,
      '/dashboard/api/machines/echo/1/heat',
    ]) {
      const started = Date.now();
      const res = await Promise.race([
        api.call('GET', path),
        new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`${path} hangs`)), 8000)),
      ]);
      const took = Date.now() - started;
      assert.equal(res.status, 503, `${path}: ${res.status} ${res.text.slice(0, 200)}`);
      assert.equal(res.json.error.code, 'REDIS_UNAVAILABLE');
      assert.ok(took < BOUND_MS, `${path} took ${took} ms`);
    }
    // An event with a time to live reads Redis's clock first: bounded too.
    const send = await Promise.race([
      api.call('POST', `/jobs/${id}/events`, {
        body: { event: { type: 'X' }, until: 'accepted', ttlMs: 60_000 },
      }),
      new Promise<never>((_, rej) => setTimeout(() => rej(new Error('POST events with ttlMs hangs')), 8000)),
    ]);
    assert.equal(send.status, 503, send.text);
    const started = Date.now();
    const metrics = await Promise.race([
      api.call('GET', '/metrics'),
      new Promise<never>((_, rej) => setTimeout(() => rej(new Error('/metrics hangs')), 8000)),
    ]);
    assert.ok(metrics.status === 200 || metrics.status === 503, `/metrics: ${metrics.status}`);
    assert.ok(Date.now() - started < BOUND_MS, '/metrics answered within the bound');
    // The page itself needs no Redis.
    assert.equal((await api.call('GET', '/dashboard', { token: null })).status, 200);
  });
});
