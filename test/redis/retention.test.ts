// Redis only: record TTLs and the sweep of the status zsets (retention on both stores:
// test/store/conformance/retentionCases.ts).

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NonRetryableError, defineJob } from '../../src/index.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';

describe('retention', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  it('keeps finished records without a TTL (retention is by the indexes) for 7 days by default', async () => {
    h = new Harness(redis);
    const job = defineJob({
      name: 'r',
      work: ({ input }: { input: string }) => {
        if (input === 'fail') throw new NonRetryableError('no');
        return input;
      },
    });
    const client = h.client({ jobs: [job] });
    await h.started({ jobs: [job] });
    const done = await client.enqueue('r', 'ok');
    const failed = await client.enqueue('r', 'fail');
    const cancelled = await client.enqueue('r', 'x', { delayMs: 60_000 });
    await client.cancel(cancelled);
    await client.waitForResult(done, { timeoutMs: 5000 });
    await client.waitForResult(failed, { timeoutMs: 5000 });
    for (const id of [done, cancelled, failed])
      assert.equal(await h.raw.pttl(h.key(`job:${id}`)), -1, `no expires entry for ${id}`);
    assert.ok((await h.raw.zscore(h.key('done'), done)) !== null);
    assert.ok((await h.raw.zscore(h.key('cancelled'), cancelled)) !== null);
    // Within the window, a sweep keeps them.
    await h.store.sweep('default');
    for (const id of [done, cancelled, failed]) assert.ok(await client.get(id), `${id} kept`);
    const queued = await client.enqueue('r', 'q', { delayMs: 60_000 });
    assert.equal(await h.raw.pttl(h.key(`job:${queued}`)), -1, 'a live job never expires');
  });

  it('deletes done and cancelled records after finishedTtlMs, with their index entries; keeps dead letters and live jobs', async () => {
    h = new Harness(redis);
    // The shortest retention a supervisor takes: its leaseMs 1000 + reaperIntervalMs 200.
    const store = h.newStore({ finishedTtlMs: 1200 });
    const job = defineJob({
      name: 'r',
      work: ({ input }: { input: string }) => {
        if (input === 'fail') throw new NonRetryableError('no');
        return 'ok';
      },
    });
    const client = h.client({ jobs: [job], store });
    await h.supervisor({ jobs: [job], store }).start();
    const id = await client.enqueue('r', null);
    const failed = await client.enqueue('r', 'fail');
    const cancelled = await client.enqueue('r', null, { delayMs: 60_000 });
    const live = await client.enqueue('r', null, { delayMs: 60_000 });
    await client.cancel(cancelled);
    await client.waitForResult(id, { timeoutMs: 5000 });
    await client.waitForResult(failed, { timeoutMs: 5000 });
    // A stray entry naming a live job must not delete it.
    await h.raw.zadd(h.key('done'), 1, live);
    // The reaper (every 200 ms here) sweeps the indexes.
    await eventually(
      async () => (await client.get(id)) === null && (await client.get(cancelled)) === null,
      4000,
    );
    assert.equal(await h.raw.exists(h.key(`job:${id}`), h.key(`job:${cancelled}`)), 0);
    assert.equal(await h.raw.zscore(h.key('done'), id), null);
    assert.equal(await h.raw.zscore(h.key('cancelled'), cancelled), null);
    assert.deepEqual((await client.list({ status: 'done' })).jobs, []);
    assert.equal((await client.get(live))?.status, 'queued', 'a live job is never swept');
    assert.equal(await h.raw.zscore(h.key('done'), live), null, 'the stray entry is dropped');
    assert.equal((await client.get(failed))?.status, 'failed', 'a dead letter stays');
    assert.deepEqual(
      (await client.deadLetters()).map((d) => d.id),
      [failed],
    );
  });

  it('sweeps a backlog larger than one call in one reap, oldest first, and nothing newer', async () => {
    h = new Harness(redis);
    const store = h.newStore({ finishedTtlMs: 60_000 });
    const old = Date.now() - 120_000;
    const pipe = h.raw.pipeline();
    for (let i = 0; i < 1_234; i++) {
      const id = `old${String(i).padStart(5, '0')}`;
      pipe.hset(h.key(`job:${id}`), 'm', 'r', 'st', 'done', 'fa', old + i);
      pipe.zadd(h.key('done'), old + i, id);
    }
    pipe.hset(h.key('job:recent'), 'm', 'r', 'st', 'done', 'fa', Date.now());
    pipe.zadd(h.key('done'), Date.now(), 'recent');
    await pipe.exec();
    const res = await store.reap('default', { maxLeaseRequeues: 5 });
    assert.deepEqual(res, { requeued: [], failed: [] });
    assert.deepEqual(await h.raw.zrange(h.key('done'), '0', '-1'), ['recent']);
    assert.deepEqual(
      (await h.keys()).filter((k) => k.includes(':job:')),
      [h.key('job:recent')],
    );
  });

  it('keeps a dead letter until purged; purge lists nothing and the record then expires', async () => {
    h = new Harness(redis);
    const store = h.newStore({ finishedTtlMs: 60_000 });
    const job = defineJob({
      name: 'r',
      work: () => {
        throw new NonRetryableError('always');
      },
    });
    const client = h.client({ jobs: [job], store });
    await h.supervisor({ jobs: [job], store }).start();
    const ids = await client.enqueueMany([{ machine: 'r' }, { machine: 'r' }]);
    for (const id of ids) await client.waitForResult(id, { timeoutMs: 5000 });
    assert.deepEqual((await client.deadLetters()).map((d) => d.id).sort(), [...ids].sort());
    for (const id of ids) assert.equal(await h.raw.pttl(h.key(`job:${id}`)), -1);
    assert.equal(await client.purgeDeadLetters(), 2);
    assert.deepEqual(await client.deadLetters(), []);
    for (const id of ids) {
      const ttl = await h.raw.pttl(h.key(`job:${id}`));
      assert.ok(ttl > 0 && ttl <= 60_000, `after purge, ttl ${ttl}`);
    }
  });
});
