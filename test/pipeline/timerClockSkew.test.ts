// Review finding: a parked pipeline's wake time is computed on the worker's clock (Date.now)
// but compared with Redis TIME in promoteDue. A worker clock behind Redis's by more than the
// timer's delay makes the job wake at once, find its timer not due, and park again: a hot loop
// of claim/park round trips until the worker's clock catches up.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from 'xstate';
import { Client, RedisStore, Supervisor, definePipeline } from '../../src/index.js';
import { startRedis, uniquePrefix, type TestRedis } from '../support/redis.js';

describe('durable timers and worker clock skew', () => {
  let redis: TestRedis;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());

  it('parks a job with a 60 s timer once, even when the worker clock is 120 s behind Redis', async () => {
    const realNow = Date.now;
    const store = new RedisStore({ url: redis.url, prefix: uniquePrefix('skew') });
    const machine = setup({}).createMachine({
      initial: 'wait',
      states: { wait: { after: { 60_000: 'end' } }, end: { type: 'final' } },
    });
    const jobs = [definePipeline({ name: 'sleeper', machine })];
    Date.now = () => realNow() - 120_000;
    const sup = new Supervisor({ store, jobs, leaseMs: 1000, heartbeatMs: 250, reaperIntervalMs: 200 });
    await sup.start();
    const client = new Client({ store, jobs });
    try {
      const id = await client.enqueue('sleeper', {});
      await new Promise((r) => setTimeout(r, 1500));
      const log = await client.events(id);
      const parks = log.filter((e) => e.type === 'parked').length;
      assert.ok(parks <= 1, `parked ${parks} times in 1.5 s`);
    } finally {
      Date.now = realNow;
      await sup.stop({ graceMs: 500 });
      client.close();
      await store.close();
    }
  });
});
