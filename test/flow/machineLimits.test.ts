// Limits per machine on a queue that serves several (machine gates, lua/include/lcGate.lua;
// docs/flow-control.md) on both stores: a machine's own concurrency, and a named limit shared by
// several machines; a job whose gate is full waits in the gate's line (queued, counted and
// listed), and the slot a finishing job frees (a plain done included) lets the next one start.

import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import type { CommitOp } from '../../src/store/types.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';
import { doneOp } from '../support/claimOps.js';
import { eventually } from '../support/redis.js';

const jobs = ['a', 'b', 'c'].map((name) => defineJob({ name, work: () => 1 }));
const claim = { workerId: 'w1', max: 10, leaseMs: 60_000, loadMachines: [] };

describeOnEachStore('machine limits', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  it("a machine's own concurrency holds only its jobs; a freed slot starts the next", async () => {
    h = world();
    const client = h.client({ jobs });
    await client.setQueueLimits('default', { machines: { a: { concurrency: 1 } } });
    const a = [await client.enqueue('a', 1), await client.enqueue('a', 2), await client.enqueue('a', 3)];
    const b = [await client.enqueue('b', 1), await client.enqueue('b', 2)];
    const first = (await h.store.commit('default', [], claim)).claimed;
    assert.deepEqual(
      first.map((c) => c.id),
      [a[0], b[0], b[1]],
    );
    const view = await client.queueLimits('default');
    assert.deepEqual(view.limits, { gates: { 'm:a': 1 }, machineGates: { a: 'm:a' } });
    assert.deepEqual(view.gates, [{ gate: 'm:a', running: 1, waiting: 2 }]);
    assert.equal((await h.store.counts('default')).queued, 2, "the gate's line is queued");
    const queued = await h.store.list({ queue: 'default', status: 'queued' });
    assert.deepEqual(queued.jobs.map((j) => j.id).sort(), [a[1], a[2]].sort());
    // A plain done of a[0] frees its slot: a[1] starts, in the same call.
    const next = await h.store.commit('default', [doneOp(first[0]!)], claim);
    assert.deepEqual(next.written, [true]);
    assert.deepEqual(
      next.claimed.map((c) => c.id),
      [a[1]],
    );
    await client.setQueueLimits('default', { machines: { a: null } });
    assert.deepEqual(
      (await h.store.commit('default', [], claim)).claimed.map((c) => c.id),
      [a[2]],
      'a cleared limit puts the line back',
    );
  });

  it('a named limit is shared by the machines that name it', async () => {
    h = world();
    const client = h.client({ jobs });
    await client.setQueueLimits('default', {
      shared: { stripe: { concurrency: 2 } },
      machines: { a: { shared: 'stripe' }, b: { shared: 'stripe' } },
    });
    const a1 = await client.enqueue('a', 1);
    const b1 = await client.enqueue('b', 1);
    const b2 = await client.enqueue('b', 2);
    const c1 = await client.enqueue('c', 1);
    const first = (await h.store.commit('default', [], claim)).claimed;
    assert.deepEqual(
      first.map((c) => c.id),
      [a1, b1, c1],
    );
    assert.deepEqual((await client.queueLimits('default')).gates, [
      { gate: 's:stripe', running: 2, waiting: 1 },
    ]);
    const next = await h.store.commit('default', [doneOp(first[0]!)], claim);
    assert.deepEqual(
      next.claimed.map((c) => c.id),
      [b2],
    );
  });

  it('a slot frees whatever the job leaves running for: cancelled, or requeued by the reaper', async () => {
    h = world();
    const client = h.client({ jobs });
    await client.setQueueLimits('default', { machines: { a: { concurrency: 1 } } });
    const ids = [await client.enqueue('a', 1), await client.enqueue('a', 2), await client.enqueue('a', 3)];
    const [c0] = (await h.store.commit('default', [], claim)).claimed;
    assert.equal(c0!.id, ids[0]);
    // A cancel of the running job: its worker writes the cancelled end; the next starts.
    await client.cancel(ids[0]!);
    const end: CommitOp = { kind: 'cancelled', id: c0!.id, token: c0!.token, log: [] };
    const [c1] = (await h.store.commit('default', [end], { ...claim, leaseMs: 30 })).claimed;
    assert.equal(c1!.id, ids[1]);
    // Its worker dies: once the lease passes the reaper requeues it and the slot is free again.
    await eventually(
      async () => (await h.store.reap('default', { maxLeaseRequeues: 5, lockMs: 1 })).requeued.length > 0,
    );
    const [c2] = (await h.store.commit('default', [], claim)).claimed;
    assert.equal(c2!.id, ids[1], 'the requeued job back at its place, ahead of the third');
    assert.deepEqual((await client.queueLimits('default')).gates, [{ gate: 'm:a', running: 1, waiting: 1 }]);
  });

  it('refuses a bad machine limit', async () => {
    h = world();
    const client = h.client({ jobs });
    await assert.rejects(
      async () => client.setQueueLimits('default', { machines: { a: { concurrency: 0 } } }),
      /positive/,
    );
    await assert.rejects(
      async () => client.setQueueLimits('default', { shared: { s: { concurrency: 1.5 } } }),
      /positive/,
    );
  });
});
