// The dedupe record on Redis (include/dedupe.lua): under the queue's hash tag, always expiring,
// and deleted by the lifecycle when its job ends.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { Harness } from '../support/harness.js';
import { startRedis, type TestRedis } from '../support/redis.js';

describe('dedupe records on Redis', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());
  const echo = defineJob({ name: 'e', work: ({ input }: { input: unknown }) => input });

  it('keeps the record under the hash tag with a TTL, and deletes it when the job ends', async () => {
    h = new Harness(redis);
    const client = h.client({ jobs: [echo] });
    const id = await client.enqueue('e', 1, { dedupe: { key: 'k' } });
    const rk = h.key('dd:k');
    assert.match(rk, /\{default\}:dd:k$/);
    assert.equal(await h.raw.get(rk), id);
    assert.ok((await h.raw.pttl(rk)) > 0, 'the record expires (no leak)');
    const ttlId = await client.enqueue('e', 1, { dedupe: { key: 't', mode: 'ttl', ttlMs: 60_000 } });
    const ttlLeft = await h.raw.pttl(h.key('dd:t'));
    assert.ok(ttlLeft > 0 && ttlLeft <= 60_000);
    await h.started({ jobs: [echo] });
    await client.waitForResult(id, { timeoutMs: 10_000 });
    await client.waitForResult(ttlId, { timeoutMs: 10_000 });
    assert.equal(await h.raw.exists(rk), 0, 'released as its job ended');
    assert.equal(await h.raw.get(h.key('dd:t')), ttlId, 'a ttl record holds for its window');
  });

  it('refuses a malformed dedupe in the script itself, writing nothing', async () => {
    h = new Harness(redis);
    const job = { id: 'x', machine: 'e', version: 1, input: '1', band: 2, delayMs: 0, maxAttempts: 1 };
    await assert.rejects(
      h.store.enqueue('default', [{ ...job, dedupe: { key: 'k', mode: 'ttl' } }]),
      /BAD_ENQUEUE 0 dedupe ttlMs/,
    );
    assert.equal(await h.raw.exists(h.key('job:x')), 0);
  });
});
