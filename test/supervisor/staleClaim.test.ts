// A claim whose answer reaches the worker only after its lease may have passed (the process
// was frozen, SIGSTOP or a long pause, with the reply in its socket) is not run: by then the
// reaper may have requeued the job and another worker may have run it past its checkpoints, and
// running it again from the claimed snapshot would repeat completed steps (chaos T3 saw one).
// Its jobs run only once a heartbeat with their tokens, answered in time, has renewed their
// leases (no other claim took them since): the others are dropped, or handed back unrun.

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { Client, Supervisor, defineJob } from '../../src/index.js';
import type { CommitResult, Store } from '../../src/store/types.js';
import { describeOnEachStore } from '../support/eachStore.js';

const LEASE_MS = 1000;
const SETTINGS = { concurrency: 1, leaseMs: LEASE_MS, heartbeatMs: 200, idleWaitMs: 200 };

/**
 * `store` whose commits that claim a job are answered `lateMs` late when `late(res)` says so
 * (called after the commit ran, before the delay).
 */
function lateReplies(
  store: Store,
  lateMs: number,
  late: (res: CommitResult) => boolean | Promise<boolean>,
): Store {
  const slow: Store = Object.create(store) as Store;
  slow.commit = async (queue, ops, claim) => {
    const res = await store.commit(queue, ops, claim);
    if (res.claimed.length > 0 && (await late(res))) await new Promise((r) => setTimeout(r, lateMs));
    return res;
  };
  return slow;
}

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
    let delayed = 0;
    const slow = lateReplies(store, 3 * LEASE_MS, () => delayed++ === 0);
    const frozen = new Supervisor({ store: slow, jobs: [job('frozen')], ...SETTINGS });
    const other = new Supervisor({ store, jobs: [job('other')], ...SETTINGS });
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

  it('runs a job whose every claim is answered late, once a heartbeat shows its lease still held', async () => {
    // A reply slow for its own sake (a snapshot of many MB on a loaded host), not a frozen
    // process: every claim of the job comes more than half a lease late. Handed back unrun each
    // time, it was claimed again without end and never ran.
    const h = world();
    const { store } = h;
    const runs: number[] = [];
    const job = defineJob({
      name: 'slowreply',
      work: ({ input }: { input: number }) => void runs.push(input),
    });
    let claims = 0;
    const slow = lateReplies(store, 0.7 * LEASE_MS, () => ++claims > 0);
    const sup = new Supervisor({ store: slow, jobs: [job], ...SETTINGS });
    const client = new Client({ store, jobs: [job] });
    try {
      await sup.start();
      const id = await client.enqueue('slowreply', 5);
      const done = await client.waitForResult(id, { timeoutMs: 8 * LEASE_MS });
      assert.equal(done.status, 'done');
      assert.deepEqual(runs, [5]);
      assert.equal(claims, 1, 'claimed once');
    } finally {
      await sup.stop();
      client.close();
      await h.close();
    }
  });

  it('ends cancelled, unrun, a job cancelled while its claim was answered late', async () => {
    const h = world();
    const { store } = h;
    const runs: number[] = [];
    const job = defineJob({
      name: 'latecancel',
      work: ({ input }: { input: number }) => void runs.push(input),
    });
    const client = new Client({ store, jobs: [job] });
    let id = '';
    // Cancelled after the claim ran, before its answer arrives.
    const slow = lateReplies(store, 0.7 * LEASE_MS, async (res) => {
      if (!res.claimed.some((c) => c.id === id)) return false;
      await client.cancel(id);
      return true;
    });
    const sup = new Supervisor({ store: slow, jobs: [job], ...SETTINGS });
    try {
      id = await client.enqueue('latecancel', 3);
      await sup.start();
      const end = await client.waitForResult(id, { timeoutMs: 8 * LEASE_MS });
      assert.equal(end.status, 'cancelled');
      assert.deepEqual(runs, [], 'never ran');
    } finally {
      await sup.stop();
      client.close();
      await h.close();
    }
  });
});
