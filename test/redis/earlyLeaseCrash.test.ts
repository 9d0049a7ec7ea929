// THE EARLY LEASE through a crash: a worker SIGKILLed while it holds jobs claimed before their
// timer was due leaves them `working` under its lease; when that lease passes (the window's end
// and a lease more: lcClaimEarly.lua) the reaper requeues them, and another supervisor runs each
// exactly once, at or after its due time (its restored timer fires at its stored due time).
// Redis only: the killed worker is another process, which cannot share a MemoryStore.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../support/redis.js';
import { fixtureSuite } from '../support/spawnFixture.js';
import { TIMED, timedPipeline } from '../fixtures/earlyLeaseJobs.js';

/** How early a step may seem to run: the store's clock and this process's agree to a few ms. */
const SKEW_MS = 15;

describe('THE EARLY LEASE through a crash', () => {
  const suite = fixtureSuite();

  it('a SIGKILLed worker’s held jobs run once each, at or after their due time, after its lease', async () => {
    const { h, w } = await suite.spawn('earlyLeaseWorker.ts');
    let stepsInChild = 0;
    w.child.stdout!.on('data', (d: Buffer) => (stepsInChild += d.toString().split('STEP').length - 1));
    const def = timedPipeline();
    const client = h.client({ jobs: [def] });
    const at = Date.now() + 6000;
    const ids = await Promise.all([0, 1, 2].map(() => client.enqueue(TIMED, { at })));
    const statuses = () => Promise.all(ids.map(async (id) => (await h.store.getJob(id))?.status));
    // Each parked once (its first run reached its timer): one may be held before another parks.
    const parked = new Set<string>();
    await eventually(async () => {
      (await statuses()).forEach((s, i) => s === 'waiting' && parked.add(ids[i]!));
      return parked.size === ids.length;
    }, 10_000);
    // Held: claimed again (early) within the lead, before the timers are due.
    await eventually(async () => (await statuses()).every((s) => s === 'working'), 10_000);
    assert.ok(Date.now() < at - 300, 'held well before due');
    await w.sigkill();
    assert.equal(stepsInChild, 0, 'the killed worker ran no step');

    let steps = 0;
    const recover = timedPipeline(() => steps++);
    const sup = await h.started({ jobs: [recover] });
    const done = await Promise.all(
      ids.map((id) => client.waitForResult<{ ranAt: number }>(id, { timeoutMs: 15_000 })),
    );
    for (const job of done) {
      assert.equal(job.status, 'done');
      assert.ok(job.output!.ranAt >= at - SKEW_MS, `ran ${at - job.output!.ranAt} ms before its due time`);
      assert.equal(job.leaseRequeues, 1, 'requeued by the reaper once its lease passed');
      const log = await client.events(job.id);
      assert.equal(log.filter((e) => e.type === 'done').length, 1);
    }
    assert.equal(steps, 3, 'each step ran exactly once');
    await sup.stop({ graceMs: 0 });
  });
});
