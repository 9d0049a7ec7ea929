// A supervisor's blocking wait for work (RedisQueuesWaiter: BZPOPMIN on the master of the queue's
// slot) is cut when that master dies, and blocks again on the replica promoted in its place: work
// queued after the promotion wakes the wait in progress, long before its own end. A waiter left
// hanging on the dead master's connection would serve again only when its wait times out (a
// supervisor's idleWaitMs, 5 s by default: a worker silently slow after every failover).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RedisStore } from '../../src/index.js';
import { queueKeys } from '../../src/store/keys.js';
import { eventually } from '../support/redis.js';
import { startCluster, type TestRedisCluster } from '../support/redisCluster.js';

describe('the wait for work across a failover', () => {
  let cluster: TestRedisCluster;
  let store: RedisStore;
  const prefix = 'fw';
  const queue = 'q0';
  before(async () => {
    cluster = await startCluster(3, 1);
    store = new RedisStore({ cluster: cluster.options, prefix });
  });
  after(async () => {
    await store.close();
    await cluster.stop();
  });

  it('blocks again on the promoted replica and is woken by work queued there', async () => {
    const waiter = store.workWaiter();
    const raw = cluster.client();
    try {
      const owner = await cluster.ownerOf(`{${queue}}`);
      const wait = waiter.wait([queue], 60_000);
      const answered = wait.then((queues) => ({ queues, at: Date.now() }));
      // Give the block time to reach the master before it dies.
      await new Promise((r) => setTimeout(r, 300));
      await cluster.cluster.kill(Number(owner.split(':')[1]));
      await eventually(async () => (await cluster.ownerOf(`{${queue}}`)) !== owner, 30_000, 100);
      const queuedAt = Date.now();
      await eventually(
        async () => (await raw.zadd(queueKeys(prefix, queue).marker, 0, 'w')) >= 0,
        10_000,
        100,
      );
      const timeout = new Promise<null>((r) => setTimeout(() => r(null), 15_000).unref());
      const got = await Promise.race([answered, timeout]);
      assert.ok(got, 'the wait in progress was not woken by work on the promoted master within 15 s');
      assert.deepEqual(got.queues, [queue]);
      assert.ok(got.at - queuedAt < 15_000);
    } finally {
      waiter.close();
      raw.disconnect();
    }
  });
});
