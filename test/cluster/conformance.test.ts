// The store conformance suites that route between queues, on RedisStore over a private 3-master
// Redis Cluster: queues 'parents' and 'kids' (the cross-queue cases) are served by different
// masters (checked below), a job is found by id alone on any shard, results, events and control
// messages come over connections of their own. The suites whose scripts touch one queue only
// (claims, the fence, leases, retries, stalls: one slot, as on one node) run on one node only
// (redisStore.conformance.test.ts). The whole set passes on the cluster too (31 s wall on the
// 2-core CI machine); this selection takes about 22 s, of which 2.5 s start the cluster.

import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { RedisStore } from '../../src/store/redis/RedisStore.js';
import { describeStore } from '../store/conformance/describeStore.js';
import { uniquePrefix } from '../support/redis.js';
import { startCluster, type TestRedisCluster } from '../support/redisCluster.js';

let cluster: TestRedisCluster;
before(async () => (cluster = await startCluster()));
after(async () => cluster.stop());

it("serves the suites' queues 'parents' and 'kids' from different masters", async () => {
  assert.notEqual(await cluster.ownerOf('{parents}'), await cluster.ownerOf('{kids}'));
});

describeStore(
  {
    name: 'RedisStore on a 3-master cluster',
    make: async (options) =>
      new RedisStore({ cluster: cluster.options, prefix: uniquePrefix('conf'), ...options }),
  },
  [
    'WorkQueue, retries, parks and inboxes',
    'FanOut',
    'FanOut, fan-out and retention',
    'JobRecords',
    'DeadLetters',
    'ResultWatch',
    'EventLog',
    'under a Supervisor and a Client',
    'under a Supervisor and a Client, children and second lives',
    // One slot of its own ({~schedules}): proves the schedule scripts and reads run on a cluster.
    'Schedules',
  ],
);
