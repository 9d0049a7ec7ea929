// Which runs a heartbeat beats (LeaseKeeper.ts, LEASES): a held run that only waits for its
// timer is left out (its claim leased it to its hold's end); one whose timer is due and waits
// its turn (THE GATE, WakeGate.ts) is beaten, as a woken one is. A run whose start waits for a
// sure lease (SURE LEASE, ActiveJob.leaseReady) gets a heartbeat sent at once, held or not, and
// starts once it is answered 'held'; answered 'lost' or 'cancel', the start never comes.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ActiveJob, type JobHost } from '../../src/runtime/ActiveJob.js';
import { LeaseConfirmations } from '../../src/runtime/LeaseConfirmations.js';
import { DeadlineBound } from '../../src/runtime/DeadlineBound.js';
import type { LeaseState } from '../../src/store/types.js';
import { bareKeeper } from '../support/bareKeeper.js';
import { claimedJob } from '../support/bareJob.js';
import { sleep } from '../support/redis.js';

const LEASE_MS = 1000;

function world(lost: ReadonlySet<string> = new Set(), cancelled: ReadonlySet<string> = new Set()) {
  const beats: string[][] = [];
  const running = new Map<string, ActiveJob>();
  const confirmations = new LeaseConfirmations();
  const deadlines = new DeadlineBound();
  const keeper = bareKeeper({
    running,
    deadlines,
    confirmations,
    leaseMs: LEASE_MS,
    heartbeat: (leases) => {
      beats.push(leases.map((l) => l.id));
      return leases.map((l): LeaseState =>
        lost.has(l.id) ? 'lost' : cancelled.has(l.id) ? 'cancel' : 'held',
      );
    },
    onLeaseLost: (id) => running.get(id)?.abort('lease-lost', 'lease lost'),
  });
  const host: JobHost = { queue: 'q', write: () => Promise.resolve(true), passWake: () => false };
  /** A run as a claim starts it: `held` until a hold's end, its lease sure until `sureUntil`. */
  const start = (id: string, held: boolean, sureUntil: number) => {
    const c = claimedJob({ id, token: `tk-${id}`, ...(held ? { holdUntil: Date.now() + 60_000 } : {}) });
    const job = new ActiveJob(c, host, deadlines, confirmations, sureUntil);
    running.set(id, job);
    return job;
  };
  return { beats, keeper, start };
}

describe('the runs a heartbeat beats', () => {
  it('leaves out a held run that waits for its timer, not one whose due timer waits its turn', async () => {
    const { beats, keeper, start } = world();
    const far = performance.now() + 60_000;
    start('plain', false, far);
    start('held', true, far);
    const due = start('due', true, far);
    assert.equal(due.passWake({ wakeNow: () => {} }), false, 'THE GATE keeps it waiting');
    keeper.start();
    try {
      // A start whose lease is not sure asks for a beat now (the keeper's own are a minute apart).
      const unsure = start('unsure', false, performance.now() - 1);
      await unsure.leaseReady();
      assert.deepEqual(beats.at(-1)!.sort(), ['due', 'plain', 'unsure']);
    } finally {
      keeper.stop();
    }
  });

  it('beats a held run whose start waits for a sure lease, and lets it start once held', async () => {
    const { beats, keeper, start } = world();
    const job = start('held', true, performance.now() - 1);
    keeper.start();
    try {
      assert.ok(performance.now() >= job.leaseSureUntil);
      await job.leaseReady();
      assert.deepEqual(beats, [['held']]);
      assert.ok(job.leaseSureUntil > performance.now(), 'sure again, from the beat');
      assert.equal(job.leaseReady(), undefined, 'the next start goes ahead at once');
    } finally {
      keeper.stop();
    }
  });

  for (const [answer, reason] of [
    ['cancel', 'cancel'],
    ['lost', 'lease-lost'],
  ] as const) {
    it(`never starts a run whose wait for a sure lease is answered '${answer}'`, async () => {
      const { keeper, start } = answer === 'lost' ? world(new Set(['j'])) : world(new Set(), new Set(['j']));
      const job = start('j', false, performance.now() - 1);
      keeper.start();
      try {
        let started = false;
        const wait = job.leaseReady()!.then(() => (started = true));
        await assert.rejects(wait, { code: 'ABORTED' });
        await sleep(10);
        assert.equal(started, false);
        assert.equal(job.abortReason, reason);
        // Aborted: no start goes ahead, however sure its lease.
        await assert.rejects(job.leaseReady() ?? Promise.resolve(), { code: 'ABORTED' });
      } finally {
        keeper.stop();
      }
    });
  }
});
