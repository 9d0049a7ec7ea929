// The deadline sweep (LeaseKeeper.ts) under THE BOUND (runtime/DeadlineBound.ts): it walks the
// running jobs only once the earliest deadline set has passed, and still aborts each attempt at
// its timeout or stall, whatever order the deadlines were set in.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ActiveJob, type JobHost } from '../../src/runtime/ActiveJob.js';
import { DeadlineBound } from '../../src/runtime/DeadlineBound.js';
import type { LeaseKeeper } from '../../src/supervisor/LeaseKeeper.js';
import { bareKeeper } from '../support/bareKeeper.js';
import { claimedJob } from '../support/bareJob.js';
import { eventually, sleep } from '../support/redis.js';

const host: JobHost = { queue: 'q', write: () => Promise.resolve(true) };

/** A running table whose walks are counted. */
class CountedTable extends Map<string, ActiveJob> {
  walks = 0;
  override values(): MapIterator<ActiveJob> {
    this.walks++;
    return super.values();
  }
}

function keeper(running: CountedTable, deadlines: DeadlineBound): LeaseKeeper {
  return bareKeeper({ running, deadlines });
}

function started(running: CountedTable, deadlines: DeadlineBound, id: string): ActiveJob {
  const job = new ActiveJob(claimedJob({ id, token: `tk-${id}` }), host, deadlines);
  running.set(id, job);
  return job;
}

describe('the deadline sweep', () => {
  it('does not walk the running jobs while no deadline has passed', async () => {
    const running = new CountedTable();
    const deadlines = new DeadlineBound();
    for (let i = 0; i < 100; i++)
      started(running, deadlines, `far-${i}`).setDeadline(performance.now() + 60_000);
    const lk = keeper(running, deadlines);
    lk.start();
    try {
      await sleep(300); // ~15 sweeps of 20 ms
      assert.equal(running.walks, 0, 'walked with every deadline a minute away');
    } finally {
      lk.stop();
    }
  });

  it('times out a short deadline set after a far one, and a far one set after a short one', async () => {
    const running = new CountedTable();
    const deadlines = new DeadlineBound();
    const lk = keeper(running, deadlines);
    lk.start();
    try {
      const far = started(running, deadlines, 'far');
      far.setDeadline(performance.now() + 60_000);
      await sleep(60); // a sweep or more: none walks yet
      const short = started(running, deadlines, 'short');
      short.timeoutMs = 100;
      short.setDeadline(performance.now() + 100);
      await eventually(() => short.abortReason === 'timeout', 2_000);
      assert.equal(far.abortReason, null);
      // The walk that aborted `short` made the bound anew: the far deadline, not Infinity.
      assert.ok(deadlines.earliest <= far.deadline && deadlines.earliest > performance.now());
      const next = started(running, deadlines, 'next');
      next.setDeadline(performance.now() + 50);
      await eventually(() => next.abortReason === 'timeout', 2_000);
      assert.equal(far.abortReason, null);
    } finally {
      lk.stop();
    }
  });

  it('stalls an attempt its reports kept alive once they stop, not before', async () => {
    const running = new CountedTable();
    const deadlines = new DeadlineBound();
    const lk = keeper(running, deadlines);
    lk.start();
    try {
      started(running, deadlines, 'far').setDeadline(performance.now() + 60_000);
      const job = started(running, deadlines, 'reports');
      job.armStall(150);
      for (let i = 0; i < 6; i++) {
        await sleep(60);
        job.observeState(`"s${i}"`);
      }
      assert.equal(job.abortReason, null, 'stalled while it reported');
      await eventually(() => job.abortReason === 'stalled', 2_000);
    } finally {
      lk.stop();
    }
  });
});
