// A supervisor's wait for work on queues of three masters blocks on all three at once (one
// connection per slot group, RedisQueuesWaiter.ts), not one at a time in turn: a job on any of
// them wakes it without waiting for its turn. A marker a lane takes after another lane already
// answered the wait is put back, and reported by the next wait (NO LOST WAKE-UP): kept for a next
// wait that a full supervisor does not make, it kept a job due from every other supervisor.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { RedisStore } from '../../src/index.js';
import { queueKeys } from '../../src/store/keys.js';
import { eventually } from '../support/redis.js';
import { startCluster, type TestRedisCluster } from '../support/redisCluster.js';

describe('the wait for work on a cluster', () => {
  let cluster: TestRedisCluster;
  let queues: string[];
  let store: RedisStore;
  const prefix = 'pw';
  before(async () => {
    cluster = await startCluster();
    queues = await cluster.queuesOnDistinctMasters(3);
    store = new RedisStore({ cluster: cluster.options, prefix });
  });
  after(async () => {
    await store.close();
    await cluster.stop();
  });

  /** The queues whose master has a client blocked in BZPOPMIN now (one connection per master). */
  const blockedOn = async (nodes: Map<string, Redis>): Promise<string[]> => {
    const out: string[] = [];
    for (const q of queues) {
      const owner = await cluster.ownerOf(`{${q}}`);
      let node = nodes.get(owner);
      if (!node) {
        const [host, port] = owner.split(':');
        nodes.set(owner, (node = new Redis({ host, port: Number(port) })));
      }
      if (/cmd=bzpopmin/.test(String(await node.call('CLIENT', 'LIST')))) out.push(q);
    }
    return out.sort();
  };

  it('blocks on every master at once and reports the queue that got work', async () => {
    const waiter = store.workWaiter();
    const marker = (q: string) => queueKeys(prefix, q).marker;
    const raw = cluster.client();
    const nodes = new Map<string, Redis>();
    try {
      const first = waiter.wait(queues, 20_000);
      // With a rotation over one connection only one master would hold a block at a time.
      await eventually(async () => (await blockedOn(nodes)).length === 3, 10_000, 100);
      await raw.zadd(marker(queues[2]!), 0, 'w');
      assert.deepEqual(await first, [queues[2]]);
      // The other lanes' blocks are still in flight (until their timeout): a marker they take
      // now is put back at once, so it is there for the next wait, which reports it at once.
      const [host, port] = (await cluster.ownerOf(`{${queues[0]}}`)).split(':');
      const master = new Redis({ host, port: Number(port) });
      const zadds = async () =>
        Number(/cmdstat_zadd:calls=(\d+)/.exec(String(await master.info('commandstats')))?.[1] ?? 0);
      try {
        const before = await zadds();
        await raw.zadd(marker(queues[0]!), 0, 'w');
        // Taken by the lane (its master saw the test's ZADD and then the lane's) and set again.
        await eventually(
          async () => (await zadds()) >= before + 2 && (await raw.exists(marker(queues[0]!))) === 1,
        );
      } finally {
        master.disconnect();
      }
      assert.deepEqual(await waiter.wait(queues, 20_000), [queues[0]]);
    } finally {
      waiter.close();
      raw.disconnect();
      for (const n of nodes.values()) n.disconnect();
    }
  });
});
