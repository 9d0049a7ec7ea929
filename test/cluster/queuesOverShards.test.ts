// One supervisor serving queues on three masters of a private Redis Cluster, and one queue split
// into partitions over them: the wait for work cannot be one BZPOPMIN there (CROSSSLOT), so it
// rotates over the queues' slots on one connection (RedisQueuesWaiter.ts); every job still runs.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { partitionQueue } from '../../src/store/partitions.js';
import { eventually } from '../support/redis.js';
import { playPartitionDrain } from '../support/partitionDrain.js';
import { clusterSuite } from '../support/redisCluster.js';

describe('queues over shards', () => {
  const suite = clusterSuite();

  const recorder = () => {
    const ran: string[] = [];
    const job = defineJob({ name: 'rec', work: ({ input }: { input: string }) => void ran.push(input) });
    return { ran, job };
  };

  it('wakes one idle supervisor for a job on any of its queues on three masters', async () => {
    const { queues } = suite;
    const h = suite.harness();
    const { ran, job } = recorder();
    const client = h.client({ jobs: [job] });
    await h.started({ jobs: [job], queues, idleWaitMs: 60_000, ingress: false });
    for (const [i, queue] of [...queues, ...queues].entries()) {
      await client.enqueue('rec', `${queue}-${i}`, { queue });
      await eventually(() => ran.length === i + 1);
    }
    assert.equal(ran.length, 6);
  });

  it('runs a queue of three partitions, spread over the masters', async () => {
    const { cluster } = suite;
    const h = suite.harness();
    const { ran, job } = recorder();
    const client = h.client({ jobs: [job] });
    await client.configureQueue('hot', { partitions: 3 });
    const owners = new Set<string>();
    for (let i = 0; i < 3; i++) owners.add(await cluster.ownerOf(`{${partitionQueue('hot', i)}}`));
    await h.started({ jobs: [job], queues: ['hot'], idleWaitMs: 60_000, ingress: false });
    const ids = await Promise.all(
      Array.from({ length: 30 }, (_, i) => client.enqueue('rec', `h${i}`, { queue: 'hot' })),
    );
    await eventually(() => ran.length === 30);
    for (const id of ids) assert.equal((await client.get(id, { queue: 'hot' }))?.status, 'done');
    // Not asserted (slots are what they are), but said: how many masters the partitions hit.
    assert.ok(owners.size >= 1);
  });

  it('partitions a populated queue online over the masters: every job once, old ids reach theirs', async () => {
    const { queues } = suite;
    const h = suite.harness();
    await playPartitionDrain(h, queues[0]);
  });
});
