// The Lua scripts' Functions library (src/store/redis/luaLibrary.ts) on a private 3-master Redis
// Cluster: a store loads it on every master when it connects, runs its scripts there with FCALL,
// and loads it again on a master that lost it (FUNCTION FLUSH; a new or failed-over node alike).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Cluster, Redis } from 'ioredis';
import { defineJob } from '../../src/index.js';
import { loadLibrary } from '../../src/store/redis/scripts.js';
import { eventually } from '../support/redis.js';
import { clusterSuite } from '../support/redisCluster.js';

async function mastersOf(c: Cluster): Promise<Redis[]> {
  await c.exists('functions-test');
  return c.nodes('master');
}

async function hasLibrary(node: Redis): Promise<boolean> {
  const list = (await node.call('FUNCTION', 'LIST', 'LIBRARYNAME', loadLibrary().name)) as unknown[];
  return list.length === 1;
}

describe('the Functions library on a 3-master Redis Cluster', () => {
  const suite = clusterSuite();

  it('is loaded on every master at connect, and again on a master that lost it', async () => {
    const { cluster, queues } = suite;
    const probe = cluster.client();
    try {
      const masters = await mastersOf(probe);
      assert.equal(masters.length, 3);
      for (const m of masters) await m.call('FUNCTION', 'FLUSH');

      const h = suite.harness();
      const job = defineJob({ name: 'echo', work: ({ input }: { input: string }) => input });
      // The store loads it on each master when it connects, before any call of a queue there.
      await eventually(async () => (await Promise.all(masters.map(hasLibrary))).every(Boolean), 5_000);

      for (const queue of queues) await h.started({ jobs: [job], queue });
      const client = h.client({ jobs: [job] });
      const runOn = async (queue: string, input: string): Promise<void> => {
        const id = await client.enqueue('echo', input, { queue });
        const done = await client.waitForResult(id, { queue, timeoutMs: 10_000 });
        assert.equal(done.output, input);
      };
      for (const queue of queues) await runOn(queue, `first ${queue}`);

      const owner = await cluster.ownerOf(`{${queues[1]}}`);
      const lost = masters.find((m) => `${m.options.host}:${m.options.port}` === owner)!;
      await lost.call('FUNCTION', 'FLUSH');
      assert.equal(await hasLibrary(lost), false);
      await runOn(queues[1]!, 'after the flush');
      assert.equal(await hasLibrary(lost), true);

      for (const m of masters) {
        const info = await m.info('commandstats');
        assert.match(info, /cmdstat_fcall:calls=[1-9]/, `FCALL on ${m.options.port}`);
        assert.doesNotMatch(info, /cmdstat_evalsha:/, `no EVALSHA on ${m.options.port}`);
      }
    } finally {
      probe.disconnect();
    }
  });
});
