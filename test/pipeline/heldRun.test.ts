// HeldRun (src/pipeline/heldRun.ts), THE EARLY LEASE's held run: how it waits for its timer and
// what ends its wait, on a bare ActiveJob whose host ends its hold as the pump's HeldJobs does.

import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { ActiveJob } from '../../src/runtime/ActiveJob.js';
import { HeldRun } from '../../src/pipeline/heldRun.js';
import type { Outcome } from '../../src/pipeline/machineDriver.js';
import { claimedJob } from '../support/bareJob.js';

const NOW = 1_000_000;
const HOLD_UNTIL = NOW + 5000;

/** A job claimed held until `holdUntil` (null: claimed due), its wakes counted. */
function held(holdUntil: number | null = HOLD_UNTIL): {
  job: ActiveJob;
  run: HeldRun;
  woke: () => number;
} {
  let woke = 0;
  const job = new ActiveJob(claimedJob({ snapshot: '{}', holdUntil: holdUntil ?? undefined }), {
    queue: 'q',
    write: () => Promise.resolve(true),
    woke: (j) => {
      woke++;
      j.holding = false; // the pump ends the hold (HeldJobs.end)
    },
  });
  return { job, run: new HeldRun(job, () => NOW, { holdEnded: () => {} }), woke: () => woke };
}

test('a held run waits in memory for a wake time up to its holdUntil, and no longer once woken', () => {
  const { job, run } = held();
  assert.equal(run.covers(HOLD_UNTIL), true);
  assert.equal(run.covers(HOLD_UNTIL + 1), false);
  assert.equal(run.left(), 5000, 'its time out starts at its timer');
  job.wake();
  assert.equal(run.covers(HOLD_UNTIL), false);
  assert.equal(run.left(), 0);
  assert.equal(held(null).run.covers(NOW + 1), false, 'a job claimed due is not held');
  assert.equal(held(NOW - 10).run.left(), 0, 'a hold past its end has none left');
});

test("a held run's wait ends at its wake time, once, and a run that runs first takes its slot then", () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const a = held();
    a.run.waitFor(NOW + 300, NOW);
    a.run.waitFor(NOW + 100, NOW); // a checkpoint while it waits: the timer armed stays
    mock.timers.tick(299);
    assert.equal(a.woke(), 0);
    mock.timers.tick(1);
    assert.equal(a.woke(), 1);
    a.run.waitFor(NOW + 300, NOW); // woken: no timer again
    a.run.running();
    mock.timers.tick(1000);
    assert.equal(a.woke(), 1);

    const b = held();
    b.run.waitFor(NOW + 300, NOW);
    b.run.running(); // an event it took moved it on
    assert.equal(b.woke(), 1);
    b.run.stop();
    mock.timers.tick(1000);
    assert.equal(b.woke(), 1);

    const c = held();
    c.run.waitFor(NOW + 300, NOW);
    c.run.stop(); // its outcome came first
    mock.timers.tick(1000);
    assert.equal(c.woke(), 0);
  } finally {
    mock.timers.reset();
  }
});

test('a stop hands a held run that only waits back parked at its wake time; any other ending stands', () => {
  const aborted: Outcome = { kind: 'aborted' };
  const waiting = () => NOW + 3000;
  const running = () => undefined;

  const a = held();
  assert.equal(a.run.stoppedBeforeOpen(), false);
  a.job.abort('shutdown', 'supervisor is shutting down');
  assert.equal(a.run.stoppedBeforeOpen(), true);
  assert.deepEqual(a.run.handBack(aborted, waiting), { kind: 'park', wakeAt: NOW + 3000 });
  assert.deepEqual(
    a.run.handBack(aborted, () => null),
    { kind: 'park', wakeAt: null },
    'a wait on events alone',
  );
  assert.equal(a.run.handBack(aborted, running), aborted, 'something runs: it is requeued');
  const done: Outcome = { kind: 'done' };
  assert.equal(a.run.handBack(done, waiting), done);

  const b = held();
  b.job.abort('cancel', 'job was cancelled');
  assert.equal(b.run.handBack(aborted, waiting), aborted, 'a cancel is not a stop');

  const c = held();
  c.job.wake(); // its timer came: it runs in a slot, as any run
  c.job.abort('shutdown', 'supervisor is shutting down');
  assert.equal(c.run.stoppedBeforeOpen(), false);
  assert.equal(c.run.handBack(aborted, waiting), aborted);
});
