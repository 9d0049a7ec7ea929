// The flow gate in the claim (src/store/roles/FlowControl.ts, docs/flow-control.md) on both
// stores, through the store's own commit-and-claim, so each case is decided by counts, not time.

import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import type { CommitOp } from '../../src/store/types.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';
import { claimUpTo, doneOp } from '../support/claimOps.js';
import { eventually } from '../support/redis.js';

const job = defineJob({ name: 'f', work: () => 1 });

describeOnEachStore('queue flow gate', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  it('a paused queue accepts enqueues and claims nothing; resume gives them out in order', async () => {
    h = world();
    const client = h.client({ jobs: [job] });
    await client.pauseQueue('default');
    const ids = [await client.enqueue('f', 1), await client.enqueue('f', 2)];
    const r = await h.store.commit('default', [], claimUpTo(10));
    assert.deepEqual(r.claimed, []);
    assert.equal((await h.store.counts('default')).queued, 2);
    assert.equal((await client.queueLimits('default')).paused, true);
    await client.resumeQueue('default');
    assert.equal((await client.queueLimits('default')).paused, false);
    const r2 = await h.store.commit('default', [], claimUpTo(10));
    assert.deepEqual(
      r2.claimed.map((c) => c.id),
      ids,
    );
  });

  it('a job running when the queue is paused finishes; nothing new starts', async () => {
    h = world();
    const client = h.client({ jobs: [job] });
    await client.enqueue('f', 1);
    const [c] = (await h.store.commit('default', [], claimUpTo(1))).claimed;
    await client.pauseQueue('default');
    await client.enqueue('f', 2);
    const r = await h.store.commit('default', [doneOp(c!)], claimUpTo(5));
    assert.deepEqual(r.written, [true]);
    assert.deepEqual(r.claimed, []);
    assert.equal((await client.get(c!.id))?.status, 'done');
  });

  it('a supervisor of a paused queue runs its jobs once resumed', async () => {
    h = world();
    const client = h.client({ jobs: [job] });
    await client.pauseQueue('default');
    const id = await client.enqueue('f', 1);
    await h.started({ jobs: [job], concurrency: 2 });
    assert.equal((await client.get(id))?.status, 'queued');
    await client.resumeQueue('default');
    await eventually(async () => (await client.get(id))?.status === 'done');
  });

  it('never runs more than total jobs of the queue at once', async () => {
    h = world();
    const client = h.client({ jobs: [job] });
    await client.setQueueLimits('default', { concurrency: { total: 3 } });
    for (let i = 0; i < 10; i++) await client.enqueue('f', i);
    const a = (await h.store.commit('default', [], claimUpTo(5))).claimed;
    assert.equal(a.length, 3);
    assert.equal((await h.store.commit('default', [], claimUpTo(5))).claimed.length, 0);
    // Two end: two more start, never more than three running.
    const b = (await h.store.commit('default', [doneOp(a[0]!), doneOp(a[1]!)], claimUpTo(5))).claimed;
    assert.equal(b.length, 2);
    assert.equal((await client.queueLimits('default')).running, 3);
    await client.setQueueLimits('default', { concurrency: { total: null } });
    assert.equal((await h.store.commit('default', [], claimUpTo(10))).claimed.length, 5);
  });

  it('runs at most perKey jobs of a key; a full key does not hold back other keys', async () => {
    h = world();
    const client = h.client({ jobs: [job] });
    await client.setQueueLimits('default', { concurrency: { perKey: 2 } });
    const a = [];
    for (let i = 0; i < 6; i++) a.push(await client.enqueue('f', i, { concurrencyKey: 'a' }));
    const b = [
      await client.enqueue('f', 'b1', { concurrencyKey: 'b' }),
      await client.enqueue('f', 'b2', { concurrencyKey: 'b' }),
    ];
    const free = await client.enqueue('f', 'free');
    const first = (await h.store.commit('default', [], claimUpTo(10))).claimed;
    assert.deepEqual(
      first.map((c) => c.id),
      [a[0], a[1], ...b, free],
    );
    const view = await client.queueLimits('default');
    assert.deepEqual(view.keys, [
      { key: 'a', running: 2, waiting: 4 },
      { key: 'b', running: 2, waiting: 0 },
    ]);
    // Nothing of a's can start until one of a's ends; then the next of a's, in order.
    assert.deepEqual((await h.store.commit('default', [], claimUpTo(10))).claimed, []);
    const next = (await h.store.commit('default', [doneOp(first[0]!)], claimUpTo(10))).claimed;
    assert.deepEqual(
      next.map((c) => c.id),
      [a[2]],
    );
  });

  it('a slot of a key frees whatever the job leaves running for: a retry, a cancel, a lease that passed', async () => {
    h = world();
    const client = h.client({ jobs: [job] });
    await client.setQueueLimits('default', { concurrency: { perKey: 1 } });
    const ids = [];
    for (let i = 0; i < 4; i++) ids.push(await client.enqueue('f', i, { concurrencyKey: 'k' }));
    const [c0] = (await h.store.commit('default', [], claimUpTo(5))).claimed;
    const retry: CommitOp = {
      kind: 'retry',
      id: c0!.id,
      token: c0!.token,
      error: '{}',
      delayMs: 60_000,
      attempt: 2,
      log: [],
    };
    const [c1] = (await h.store.commit('default', [retry], claimUpTo(5))).claimed;
    assert.equal(c1!.id, ids[1]);
    // A cancel of a running job: its worker writes the cancelled end.
    await client.cancel(ids[1]!);
    const end: CommitOp = { kind: 'cancelled', id: c1!.id, token: c1!.token, log: [] };
    const [c2] = (await h.store.commit('default', [end], { ...claimUpTo(5), leaseMs: 30 })).claimed;
    assert.equal(c2!.id, ids[2]);
    assert.deepEqual((await client.queueLimits('default')).keys, [{ key: 'k', running: 1, waiting: 1 }]);
    // Its worker dies: once the lease passes the reaper requeues it and the slot is free again.
    await eventually(
      async () => (await h.store.reap('default', { maxLeaseRequeues: 5, lockMs: 1 })).requeued.length > 0,
    );
    const [c3] = (await h.store.commit('default', [], claimUpTo(5))).claimed;
    assert.equal(c3!.id, ids[2]);
    assert.deepEqual((await client.queueLimits('default')).keys, [{ key: 'k', running: 1, waiting: 1 }]);
  });

  it('cancelNewest ends a job whose key is full cancelled at its claim, saying why', async () => {
    h = world();
    const client = h.client({ jobs: [job] });
    await client.setQueueLimits('default', { concurrency: { perKey: 1, strategy: 'cancelNewest' } });
    assert.equal((await client.queueLimits('default')).limits.strategy, 'cancelNewest');
    const a = await client.enqueue('f', 1, { concurrencyKey: 'k' });
    const b = await client.enqueue('f', 2, { concurrencyKey: 'k' });
    const other = await client.enqueue('f', 3, { concurrencyKey: 'j' });
    const claimed = (await h.store.commit('default', [], claimUpTo(5))).claimed.map((c) => c.id);
    assert.deepEqual(claimed, [a, other]);
    assert.equal((await client.get(b))?.status, 'cancelled');
    const entry = (await client.events(b)).find((e) => e.type === 'cancelled') as
      { reason?: string } | undefined;
    assert.match(entry?.reason ?? '', /concurrency key k is full/);
  });

  it('cancelInProgress asks the running job of the key to stop; the new one takes its slot', async () => {
    h = world();
    const client = h.client({ jobs: [job] });
    await client.setQueueLimits('default', { concurrency: { perKey: 1, strategy: 'cancelInProgress' } });
    await client.enqueue('f', 1, { concurrencyKey: 'k' });
    const [old] = (await h.store.commit('default', [], claimUpTo(5))).claimed;
    const newer = await client.enqueue('f', 2, { concurrencyKey: 'k' });
    assert.deepEqual((await h.store.commit('default', [], claimUpTo(5))).claimed, []);
    // The running one was asked to stop (its worker hears it); it ends cancelled, freeing the slot.
    assert.equal((await h.store.jobStatus(old!.id, 'default'))?.cancelRequested, true);
    const end: CommitOp = { kind: 'cancelled', id: old!.id, token: old!.token, log: [] };
    const next = (await h.store.commit('default', [end], claimUpTo(5))).claimed.map((c) => c.id);
    assert.deepEqual(next, [newer]);
    assert.equal((await client.get(old!.id))?.status, 'cancelled');
  });
});
