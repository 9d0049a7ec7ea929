import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NonRetryableError, defineJob } from '../../src/index.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';

const DAY = 24 * 3600 * 1000;

describe('retention', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  it('gives finished records a TTL of 7 days by default, and none to dead letters', async () => {
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
    for (const id of [done, cancelled]) {
      const ttl = await h.raw.pttl(h.key(`job:${id}`));
      assert.ok(ttl > 7 * DAY - 60_000 && ttl <= 7 * DAY, `ttl of ${id}: ${ttl}`);
    }
    assert.equal(await h.raw.pttl(h.key(`job:${failed}`)), -1, 'a dead letter stays until purged');
    const queued = await client.enqueue('r', 'q', { delayMs: 60_000 });
    assert.equal(await h.raw.pttl(h.key(`job:${queued}`)), -1, 'a live job never expires');
  });

  it('expires finished records after a configured finishedTtlMs and drops them from the indexes', async () => {
    h = new Harness(redis);
    const store = h.newStore({ finishedTtlMs: 300 });
    const job = defineJob({ name: 'r', work: () => 'ok' });
    const client = h.client({ jobs: [job], store });
    await h.supervisor({ jobs: [job], store }).start();
    const id = await client.enqueue('r', null);
    await client.waitForResult(id, { timeoutMs: 5000 });
    const ttl = await h.raw.pttl(h.key(`job:${id}`));
    assert.ok(ttl > 0 && ttl <= 300, `ttl ${ttl}`);
    await eventually(async () => (await client.get(id)) === null, 3000);
    // The reaper trims the done index to the retention window.
    await eventually(async () => (await h.raw.zscore(h.key('done'), id)) === null, 3000);
    assert.deepEqual((await client.list({ status: 'done' })).jobs, []);
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
