// The pipeline behaviour suite (test/pipeline/behaviourSuite.ts) on RedisStore over a private
// 3-master Redis Cluster: the cases that route something besides the queue's own scripts (a
// cancel over the control channel, events sent to a job, a dead letter redriven by id, child
// jobs). The whole suite passes there too (24 s wall on 2 busy cores); this selection 20 s.

import { after, before, describe } from 'node:test';
import { Harness } from '../support/harness.js';
import { startCluster, type TestRedisCluster } from '../support/redisCluster.js';
import { CASES_AT_ONCE, behaviourSuite } from '../pipeline/behaviourSuite.js';

describe('pipeline behaviour on a 3-master cluster, on both runtimes', { concurrency: CASES_AT_ONCE }, () => {
  let cluster: TestRedisCluster;
  before(async () => (cluster = await startCluster()));
  after(async () => cluster.stop());
  behaviourSuite(
    () => new Harness(cluster),
    (name) => /cancel|event|redriven|fan-out/.test(name),
  );
});
