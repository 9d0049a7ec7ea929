// A queue's marker taken by a block that no lane waits on any more MUST NOT strand a job due for
// another supervisor. Supervisors A and B (one slot each) idle on one queue. A learns a delayed
// job's due time; its own timer ends its wait, but the blocking read it started stays in flight
// (a wait is left, not cut: WorkSignals), and A claims the job and is full. A job enqueued with a
// 300 ms delay sets the marker: A's leftover block, the oldest, takes it; A is full and does not
// look. B never learnt the due time and slept out its idle wait: the job ran ~4.6 s late (both
// stores, every run). WorkSignals now puts such a marker back (QueuesWaiter.putBack) for B.
import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, sleep } from '../support/redis.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';
import { heldJob, LATE_BOUND_MS } from '../support/heldJob.js';

describeOnEachStore('a marker taken by a wait that was left', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  it('does not keep a job due from an idle supervisor while the one that took it is full', async () => {
    h = world();
    const { job, holding, release, lateOf } = heldJob();
    const client = h.client({ jobs: [job] });
    try {
      // A's block comes first, then B's.
      await h.started({ jobs: [job], concurrency: 1, idleWaitMs: 5000 });
      await sleep(100);
      await h.started({ jobs: [job], concurrency: 1, idleWaitMs: 5000 });
      await sleep(100);
      // A takes the marker this sets (the oldest block), learns the due time, and blocks again
      // (now behind B). At the due time A's own timer ends its wait and A claims the job: its
      // block stays in flight, A full. The marker that claim sets goes to B's block (older):
      // B finds nothing and blocks again, behind A's leftover block now.
      await client.enqueue('mixed', 'hold', { delayMs: 400 });
      await eventually(holding, 3000);
      await sleep(100);
      const due = Date.now() + 300;
      const id = await client.enqueue('mixed', 'timer', { delayMs: 300 });
      await client.waitForResult(id, { timeoutMs: 10_000 });
      const late = lateOf('timer', due);
      assert.ok(late <= LATE_BOUND_MS, `the timer ran ${late} ms after its due time`);
    } finally {
      release();
    }
  });
});
