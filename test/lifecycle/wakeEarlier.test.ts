// An idle supervisor sleeps until the earliest due time it saw. A retry or timer that another
// worker writes, due sooner, wakes it: it runs within a second of its due time, not after the
// idle wait.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { sleep, startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';

describe('due times that move earlier', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  it("runs another worker's retry due in 300 ms while this supervisor idles for 5 s", async () => {
    h = new Harness(redis);
    const job = defineJob({ name: 'r', work: () => 'ran' });
    const client = h.client({ jobs: [job] });
    const id = await client.enqueue('r', null);
    // Another worker claims it ...
    const token = (await h.claimAs('other'))[0]!.token;
    // ... while this one starts and goes idle, with nothing due.
    await h.started({ jobs: [job], idleWaitMs: 5000 });
    await sleep(200);
    const t0 = Date.now();
    await h.store.commit('default', [
      { kind: 'retry', id, token, error: '{"message":"x"}', delayMs: 300, attempt: 2, log: [] },
    ]);
    const done = await client.waitForResult(id, { timeoutMs: 8000 });
    const elapsed = Date.now() - t0;
    assert.equal(done.status, 'done');
    assert.ok(elapsed < 2000, `ran ${elapsed} ms after the retry was written (due at 300 ms)`);
  });
});
