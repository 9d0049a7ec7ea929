// A claim whose answer reaches the worker only after its lease may have passed (the process
// was frozen, SIGSTOP or a long pause, with the reply in its socket) is not run: by then the
// reaper may have requeued the job and another worker may have run it past its checkpoints, and
// running it again from the claimed snapshot would repeat completed steps (chaos T3 saw one).
// The jobs of such a claim are handed back unrun (a requeue, fenced by their tokens).

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { Client, Supervisor, defineJob } from '../../src/index.js';
import type { Store } from '../../src/store/types.js';
import { describeOnEachStore } from '../support/eachStore.js';

const LEASE_MS = 1000;

describeOnEachStore('a claim answered after its lease may have passed', (world) => {
  it('is handed back unrun: the job runs once, on the worker whose lease held', async () => {
    const h = world();
    const { store } = h;
    const runs: string[] = [];
    const job = (name: string) =>
      defineJob({
        name: 'once',
        work: async ({ input }: { input: number }) => {
          runs.push(name);
          return input;
        },
      });
    // The first worker's first claim that takes a job is answered 3 leases late, as to a frozen
    // process; the second worker is a normal one, whose reaper takes the job back meanwhile.
    const slow: Store = Object.create(store) as Store;
    let delayed = 0;
    slow.commit = async (queue, ops, claim) => {
      const res = await store.commit(queue, ops, claim);
      if (res.claimed.length > 0 && delayed === 0) {
        delayed++;
        await new Promise((r) => setTimeout(r, 3 * LEASE_MS));
      }
      return res;
    };
    const settings = { concurrency: 1, leaseMs: LEASE_MS, heartbeatMs: 200, idleWaitMs: 200 };
    const frozen = new Supervisor({ store: slow, jobs: [job('frozen')], ...settings });
    const other = new Supervisor({ store, jobs: [job('other')], ...settings });
    const client = new Client({ store, jobs: [job('client')] });
    try {
      await frozen.start();
      const id = await client.enqueue('once', 7);
      // The frozen worker holds the claim's answer; the other starts after it claimed.
      while (delayed === 0) await new Promise((r) => setTimeout(r, 10));
      await other.start();
      const done = await client.waitForResult(id, { timeoutMs: 10_000 });
      assert.equal(done.status, 'done');
      // Past the delayed answer, and a while after: a stale run would have started by now.
      await new Promise((r) => setTimeout(r, 3 * LEASE_MS));
      assert.deepEqual(runs, ['other'], 'the job ran once, not again from the late claim');
    } finally {
      await Promise.all([frozen.stop(), other.stop()]);
      client.close();
      await h.close();
    }
  });
});
