// A timer's due time is stamped on the store's clock by the worker that arms it, and read back
// by whichever worker restores it (StoreClock.ts). Stamped from the worker's lower bound of the
// store's time, it was early by up to that bound's lag: a worker whose commit answers are read
// late (a busy event loop, a slow link back) knows the store's time only within its round trip,
// and the worker that later restored its parked job fired the timer that much before its delay
// had passed. Stamped from the upper bound (NEVER EARLY), it fires no sooner, on both runtimes.

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { Client, Supervisor } from '../../src/index.js';
import type { Store } from '../../src/store/types.js';
import { describeOnEachStore } from '../support/eachStore.js';
import { TIMED, timedPipeline } from '../fixtures/earlyLeaseJobs.js';

const SETTINGS = { concurrency: 4, leaseMs: 1000, heartbeatMs: 250, reaperIntervalMs: 200 };
const LATE_MS = 200;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `store` whose commits run at once and whose answers reach the caller `ms` later. */
function lateAnswers(store: Store, ms: number): Store {
  const late: Store = Object.create(store) as Store;
  late.commit = async (queue, ops, claim) => {
    const res = await store.commit(queue, ops, claim);
    await sleep(ms);
    return res;
  };
  return late;
}

for (const compile of [false, true]) {
  const runtime = compile ? 'compiled' : 'XState';
  describeOnEachStore(`a timer armed by a worker whose answers come late (${runtime})`, (world) => {
    it('fires on another worker no sooner than its delay after it was armed', async () => {
      const h = world();
      const { store } = h;
      const jobs = [timedPipeline(() => {}, compile)];
      const logger = pino({ level: 'silent' });
      // The parker arms the timer and parks the job; the resumer restores it and fires it.
      const parker = new Supervisor({ store: lateAnswers(store, LATE_MS), jobs, logger, ...SETTINGS });
      const resumer = new Supervisor({ store, jobs, logger, ...SETTINGS });
      const client = new Client({ store, jobs });
      try {
        await parker.start();
        const at = Date.now() + 2000;
        const id = await client.enqueue(TIMED, { at });
        while ((await client.get(id))?.status !== 'waiting') await sleep(20);
        await parker.stop();
        await resumer.start();
        const job = await client.waitForResult(id, { timeoutMs: 10_000 });
        assert.equal(job.status, 'done');
        const { ranAt } = job.output as { ranAt: number };
        // Redis runs on this host: its TIME and Date.now() agree to a millisecond or two. The
        // defect fired it up to LATE_MS early.
        assert.ok(ranAt >= at - 5, `the step ran ${at - ranAt} ms before the timer's due time`);
      } finally {
        await Promise.all([parker.stop(), resumer.stop()]);
        client.close();
        await h.close();
      }
    });
  });
}
