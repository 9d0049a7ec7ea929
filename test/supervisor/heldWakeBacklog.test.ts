// THE GATE (src/supervisor/WakeGate.ts) on a real store: 5,000 held runs (THE EARLY LEASE) due at
// one instant. The worker woke them all in one timers phase, queuing 5,000 dones at once (its
// commits then had all of them in flight); gated, it keeps no more than WAKE_BACKLOG writes
// unanswered, waking the rest as answers come. Every job still ends done, none before its time.
// On both runtimes: the XState driver's timers are gated through its held runs' clock
// (pipeline/heldClock.ts), the compiled driver's in WaitTimers.

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { Client, Supervisor } from '../../src/index.js';
import type { Store } from '../../src/store/types.js';
import { WAKE_BACKLOG } from '../../src/supervisor/WakeGate.js';
import { describeOnEachStore } from '../support/eachStore.js';
import { TIMED, timedPipeline } from '../fixtures/earlyLeaseJobs.js';

const N = 5000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `store` that counts the ops of its commits in flight, and the most at once once `from()`. */
function counting(store: Store, from: () => boolean): { store: Store; most: () => number } {
  let inFlight = 0;
  let most = 0;
  const s: Store = Object.create(store) as Store;
  s.commit = async (queue, ops, claim) => {
    inFlight += ops.length;
    if (from()) most = Math.max(most, inFlight);
    try {
      // A turn of the loop on the way, as a network's: a MemoryStore's commits would otherwise
      // be answered before the next could be sent, and none would ever be in flight together.
      await new Promise((r) => setImmediate(r));
      return await store.commit(queue, ops, claim);
    } finally {
      inFlight -= ops.length;
    }
  };
  return { store: s, most: () => most };
}

describeOnEachStore('held runs due at one instant', (world) => {
  for (const compile of [true, false])
    it(`keep at most WAKE_BACKLOG (${WAKE_BACKLOG}) writes unanswered as they wake, and all end done on time (${compile ? 'compiled' : 'XState actors'})`, async () => {
      const h = world();
      const jobs = [timedPipeline(undefined, compile)];
      assert.equal(Boolean(jobs[0]!.compiled), compile);
      const at = Date.now() + 8000;
      const watched = counting(h.store, () => Date.now() >= at - 20);
      const sup = new Supervisor({
        store: watched.store,
        jobs,
        logger: pino({ level: 'silent' }),
        concurrency: 200,
        leadMs: 60_000,
        holdMax: N,
      });
      const client = new Client({ store: h.store, jobs });
      try {
        await sup.start();
        await client.enqueueMany(Array.from({ length: N }, () => ({ machine: TIMED, input: { at } })));
        while ((await h.store.counts('default')).done < N) {
          assert.ok(Date.now() < at + 30_000, 'all done within 30 s of their due time');
          await sleep(100);
        }
        assert.ok(
          watched.most() <= WAKE_BACKLOG,
          `${watched.most()} writes in flight at once after the due time`,
        );
        const page = await client.list({ status: 'done', limit: 50 });
        for (const j of page.jobs) assert.ok((j.output as { ranAt: number }).ranAt >= at - 3, 'not early');
      } finally {
        await sup.stop();
        client.close();
        await h.close();
      }
    });
});
