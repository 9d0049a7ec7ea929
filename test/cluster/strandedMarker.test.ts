// test/supervisor/strandedMarker.test.ts on a private 3-master Redis Cluster, where the wait for
// work blocks on lanes (RedisQueuesWaiter): a marker taken by a full supervisor's block that no
// wait is in progress for MUST be put back, or a job due for an idle supervisor waits out its
// idle wait (5 s). Two paths leave such a block: the wait ended by the lane's own due timer (as
// on one node), and a lane whose marker answered the wait blocked again at once (ANSWERED), its
// wait's queues still set. Without the fix this file's job ran ~4.6 s late every run.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { clusterSuite } from '../support/redisCluster.js';
import { eventually, sleep } from '../support/redis.js';
import { heldJob, LATE_BOUND_MS } from '../support/heldJob.js';

describe('a marker taken by a wait that was left, on a 3-master cluster', () => {
  const suite = clusterSuite(1);

  for (const delayMs of [400, 0])
    it(`does not keep a job due from an idle supervisor (the full one's job delayed ${delayMs} ms)`, async () => {
      const h = suite.harness();
      const queue = suite.queues[0]!;
      const { job, holding, release, lateOf } = heldJob();
      const client = h.client({ jobs: [job], queue });
      try {
        const started = () => h.started({ jobs: [job], queues: [queue], concurrency: 1, idleWaitMs: 5000 });
        await started();
        await sleep(100);
        if (delayMs > 0) {
          // B's block comes after A's. A's takes the marker this sets and A blocks again (now
          // behind B). A's timer ends its wait at the due time, its block runs on, A claims the
          // job (full); that claim's marker goes to B, which blocks again behind A.
          await started();
          await sleep(100);
          await client.enqueue('mixed', 'hold', { delayMs });
          await eventually(holding, 3000);
        } else {
          // A's lane takes the marker this sets and blocks again as it answers (ANSWERED); A
          // claims the job (full). B's block comes after.
          await client.enqueue('mixed', 'hold');
          await eventually(holding, 3000);
          await started();
        }
        await sleep(100);
        const due = Date.now() + 300;
        const id = await client.enqueue('mixed', 'timer', { delayMs: 300 });
        await client.waitForResult(id, { timeoutMs: 10_000, queue });
        const late = lateOf('timer', due);
        assert.ok(late <= LATE_BOUND_MS, `the timer ran ${late} ms after its due time`);
      } finally {
        release();
      }
    });
});
