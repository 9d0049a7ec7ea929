// The queue set's purge path: a queue name stays listed once used, until it is empty and
// forgotten; a queue that still holds jobs is refused, naming what it holds.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';

describe('forgetting a queue', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  it('refuses a queue that holds jobs, and takes an empty one off the list', async () => {
    h = new Harness(redis);
    const job = defineJob({ name: 'j', work: () => 1 });
    const client = h.client({ jobs: [job] });
    const id = await client.enqueue('j', null, { queue: 'temp' });
    assert.ok((await h.store.queues()).includes('temp'));
    await assert.rejects(() => client.forgetQueue('temp'), {
      code: 'QUEUE_NOT_EMPTY',
      queue: 'temp',
      message: /queued 1/,
    });
    assert.equal(await client.cancel(id, { queue: 'temp' }), true);
    await assert.rejects(() => client.forgetQueue('temp'), {
      code: 'QUEUE_NOT_EMPTY',
      message: /cancelled 1/,
    });
    await h.raw.del(h.key('cancelled', 'temp'), h.key(`job:${id}`, 'temp'));
    await client.forgetQueue('temp');
    assert.equal((await h.store.queues()).includes('temp'), false);
    // Used again, it is listed again.
    await client.enqueue('j', null, { queue: 'temp' });
    assert.ok((await h.store.queues()).includes('temp'));
  });
});
