// An ingress entry's concurrencyKey (docs/ingress.md, docs/flow-control.md): the job it makes
// carries the key and is held to the queue's perKey limit like an enqueued one.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';

describe('ingress concurrencyKey', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  it('makes a job that holds its key: perKey 1 runs the key one at a time', async () => {
    h = new Harness(redis);
    let running = 0;
    let most = 0;
    let finished = 0;
    const slow = defineJob({
      name: 'slow',
      work: async () => {
        most = Math.max(most, ++running);
        await new Promise((r) => setTimeout(r, 10));
        running--;
        finished++;
        return 1;
      },
    });
    const client = h.client();
    await client.setQueueLimits('default', { concurrency: { perKey: 1 } });
    await h.raw.lpush(
      h.key('ingress'),
      ...[1, 2, 3, 4].map((n) =>
        JSON.stringify({ machine: 'slow', input: n, id: `in-${n}`, concurrencyKey: 'k' }),
      ),
    );
    await h.started({ jobs: [slow], concurrency: 4 });
    await eventually(() => finished === 4, 10_000);
    assert.equal(await h.raw.hget(h.key('job:in-1'), 'ck'), 'k');
    assert.equal(most, 1);
  });
});
