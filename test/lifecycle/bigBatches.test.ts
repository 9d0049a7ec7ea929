// No half-applied script: every script checks its arguments before its first write, and writes
// caller-sized lists in slices below Lua's unpack limit, so a supervisor with concurrency
// 10,000 claims, heartbeats and finishes its jobs.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { Harness, gate } from '../support/harness.js';

describe('caller-sized batches and malformed arguments', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  it('runs 10,000 jobs at once in one supervisor, through heartbeats, to done', async () => {
    h = new Harness(redis);
    const release = gate();
    let running = 0;
    const job = defineJob({
      name: 'held',
      work: async () => {
        running++;
        await release.promise;
        return 1;
      },
    });
    const client = h.client({ jobs: [job] });
    const sup = await h.started({ jobs: [job], concurrency: 10_000, leaseMs: 5000, heartbeatMs: 300 });
    const ids = await client.enqueueMany(
      Array.from({ length: 10_000 }, () => ({ machine: 'held', input: null })),
    );
    await eventually(() => running === 10_000, 30_000);
    assert.equal(sup.inFlight, 10_000);
    // A heartbeat of all 10,000 leases lands: every lease deadline moves past the first one.
    const first = Number((await h.raw.zrange(h.key('active'), '0', '0', 'WITHSCORES'))[1]);
    await eventually(
      async () => Number((await h.raw.zrange(h.key('active'), '0', '0', 'WITHSCORES'))[1]) > first,
      10_000,
    );
    release.open();
    await eventually(async () => (await h.store.counts('default')).done === 10_000, 30_000);
    assert.equal((await client.get(ids[9_999]!))?.status, 'done');
    assert.equal(await h.raw.zcard(h.key('active')), 0);
  });

  it('refuses a commit with a malformed op, and writes none of its ops', async () => {
    h = new Harness(redis);
    const job = defineJob({ name: 'j', work: () => 1 });
    const client = h.client({ jobs: [job] });
    const a = await client.enqueue('j', null);
    const b = await client.enqueue('j', null);
    const [ta, tb] = (await h.claimAs('w', { max: 2 })).map((c) => c.token);
    const logBefore = await client.events(a);
    await assert.rejects(
      () =>
        h.store.commit('default', [
          {
            kind: 'checkpoint',
            id: a,
            token: ta!,
            status: 'working',
            progress: '5',
            log: ['{"type":"progress"}'],
          },
          {
            kind: 'retry',
            id: b,
            token: tb!,
            error: '{}',
            delayMs: Number.NaN,
            attempt: 2,
            log: ['{"type":"retry-scheduled"}'],
          },
        ]),
      /BAD_COMMIT 2 retry delay/,
    );
    assert.deepEqual(await client.events(a), logBefore);
    assert.equal((await client.get(a))?.progress, null);
    assert.equal((await client.get(b))?.status, 'working');
    assert.equal(
      (await client.events(b)).some((e) => e.type === 'retry-scheduled'),
      false,
    );
  });

  it('requeues a job whose stored place in line is not a number, and the others in the same call', async () => {
    h = new Harness(redis);
    const job = defineJob({ name: 'j', work: () => 1 });
    const client = h.client({ jobs: [job] });
    const bad = await client.enqueue('j', null);
    const good = await client.enqueue('j', null);
    await h.claimAs('dead', { max: 2, leaseMs: 20 });
    // A foreign producer's record: a place in line that is not a number.
    await h.raw.hset(h.key(`job:${bad}`), 'qs', 'front');
    await new Promise((r) => setTimeout(r, 40));
    const res = await h.store.reap('default', { maxLeaseRequeues: 5, lockMs: 1 });
    assert.deepEqual([...res.requeued].sort(), [bad, good].sort());
    for (const id of [bad, good]) assert.ok(await h.inLine(id), `${id} in line`);
  });
});
