// A claim that fails with a temporary error (Redis failing over, unreachable) while the
// supervisor has nothing else in flight is sent again after its backoff: the lane does not wait
// for a kick that nothing will give (no job running, no write pending, no other lane), which
// left a worker claiming nothing after a failover until it was restarted (chaos T16c).

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { Client, Supervisor, defineJob } from '../../src/index.js';
import type { Store } from '../../src/store/types.js';
import { describeOnEachStore } from '../support/eachStore.js';

describeOnEachStore('a claim refused for a while', (world) => {
  it('is sent again after its backoff though nothing else runs, and serves the queue', async () => {
    const h = world();
    const { store } = h;
    const echo = defineJob({ name: 'echo', work: async ({ input }: { input: number }) => input });
    // The supervisor's first claims (claim-only commits: nothing to write yet) fail as Redis
    // does while a master is being replaced.
    const commit: Store['commit'] = store.commit.bind(store);
    let refused = 0;
    store.commit = async (queue, ops, claim) => {
      if (ops.length === 0 && claim && refused < 2) {
        refused++;
        throw Object.assign(
          new Error('Too many Cluster redirections. Last error: Error: Connection is closed.'),
          {
            code: 'REDIS_UNAVAILABLE',
          },
        );
      }
      return commit(queue, ops, claim);
    };
    const sup = new Supervisor({
      store,
      jobs: [echo],
      concurrency: 2,
      leaseMs: 1000,
      heartbeatMs: 200,
      idleWaitMs: 60_000,
    });
    const client = new Client({ store, jobs: [echo] });
    try {
      await sup.start();
      const id = await client.enqueue('echo', 7);
      const job = await client.waitForResult(id, { timeoutMs: 5000 });
      assert.equal(refused, 2);
      assert.equal(job.status, 'done');
    } finally {
      await sup.stop();
      client.close();
      await h.close();
    }
  });
});
