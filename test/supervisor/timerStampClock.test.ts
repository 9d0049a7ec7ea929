// A timer's due time is stamped on the store's clock by the worker that arms it, and read back
// by whichever worker restores it (StoreClock.ts). Stamped from the worker's lower bound of the
// store's time, it was early by up to that bound's lag: a worker whose commit answers are read
// late (a busy event loop, a slow link back) knows the store's time only within its round trip,
// and the worker that later restored its parked job fired the timer that much before its delay
// had passed. Stamped from the upper bound (NEVER EARLY), it fires no sooner, on both runtimes.

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { describeOnEachStore } from '../support/eachStore.js';
import { lateCommits, parkThenRun } from '../support/parkedTimer.js';

const LATE_MS = 200;

for (const compile of [false, true]) {
  const runtime = compile ? 'compiled' : 'XState';
  describeOnEachStore(`a timer armed by a worker whose answers come late (${runtime})`, (world) => {
    it('fires on another worker no sooner than its delay after it was armed', async () => {
      const h = world();
      try {
        // The parker arms the timer and parks the job; the runner restores it and fires it.
        const { status, at, ranAt } = await parkThenRun({
          store: h.store,
          parker: lateCommits(h.store, LATE_MS, 'answer'),
          runner: h.store,
          compile,
          dueInMs: 2000,
        });
        assert.equal(status, 'done');
        // Redis runs on this host: its TIME and Date.now() agree to a millisecond or two. The
        // defect fired it up to LATE_MS early.
        assert.ok(ranAt >= at - 5, `the step ran ${at - ranAt} ms before the timer's due time`);
      } finally {
        await h.close();
      }
    });
  });
}
