// ROLE WorkQueue, leases: a lease that passes is requeued (and failed past its budget), the
// reaper is told when the next one passes, and a killed worker process's job comes back.

import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { StoreFactory } from './storeFactory.js';
import { storeTest } from './storeTest.js';
import { claim, enqueueOne, sleep } from './support.js';

export function leaseCases(factory: StoreFactory): void {
  const test = storeTest(factory);

  test('requeues a job whose lease passed, and fails it with LEASE_EXPIRED past its budget', async (store) => {
    const id = await enqueueOne(store);
    await claim(store, { leaseMs: 30 });
    await sleep(60);
    assert.deepEqual(await store.reap('default', { maxLeaseRequeues: 1, lockMs: 1 }), {
      requeued: [id],
      failed: [],
    });
    const requeued = (await store.getJob(id))!;
    assert.equal(requeued.status, 'queued');
    assert.equal(requeued.leaseRequeues, 1);
    const [again] = await claim(store, { leaseMs: 30 });
    assert.equal(again!.leaseRequeues, 1);
    await sleep(60);
    const r = await store.reap('default', { maxLeaseRequeues: 1, lockMs: 1 });
    assert.deepEqual(r, { requeued: [], failed: [id] });
    const failed = (await store.getJob(id))!;
    assert.equal(failed.status, 'failed');
    assert.equal(failed.error?.code, 'LEASE_EXPIRED');
    assert.deepEqual(
      (await store.deadLetters('default', 10)).map((d) => d.id),
      [id],
    );
  });

  test('tells the reaper when the earliest lease passes, and lets its lock lapse by then', async (store) => {
    const idle = await store.reap('default', { maxLeaseRequeues: 1, lockMs: 1 });
    assert.equal(idle.nextDueMs, undefined, 'no job runs: nothing is due');
    const id = await enqueueOne(store);
    await claim(store, { leaseMs: 400 });
    await sleep(5);
    const r = await store.reap('default', { maxLeaseRequeues: 1, lockMs: 60_000 });
    assert.deepEqual(r.requeued, []);
    assert.ok(r.nextDueMs !== undefined && r.nextDueMs > 200 && r.nextDueMs <= 400, `due in ${r.nextDueMs}`);
    // A caller inside the lock reaps nothing and is told the same time, not the lock's minute.
    const locked = await store.reap('default', { maxLeaseRequeues: 1, lockMs: 60_000 });
    assert.deepEqual(locked.requeued, []);
    assert.ok(locked.nextDueMs !== undefined && locked.nextDueMs <= 400, `due in ${locked.nextDueMs}`);
    await sleep(locked.nextDueMs + 20);
    assert.deepEqual((await store.reap('default', { maxLeaseRequeues: 1, lockMs: 60_000 })).requeued, [id]);
  });

  if (factory.claimInKilledProcess) {
    const claimInKilledProcess = factory.claimInKilledProcess;
    test('requeues the job of a worker process that was killed, once its lease passes', async (store) => {
      const id = await enqueueOne(store);
      assert.equal(await claimInKilledProcess(store, 'default', 200), id);
      assert.equal((await store.getJob(id))!.status, 'working');
      await sleep(300);
      assert.deepEqual((await store.reap('default', { maxLeaseRequeues: 5, lockMs: 1 })).requeued, [id]);
      assert.equal((await claim(store))[0]!.id, id);
    });
  } else {
    it('requeues the job of a worker process that was killed, once its lease passes', {
      skip: `${factory.name} lives in one process: no worker in another process can hold its leases (a lease that passes in-process is the lease case above)`,
    });
  }
}
