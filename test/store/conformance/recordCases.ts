// ROLE JobRecords (and Registry.counts): a job's record listed once under its status, pages of
// records and the index counts, and retention deleting done records.

import assert from 'node:assert/strict';
import type { StoreFactory } from './storeFactory.js';
import { storeTest } from './storeTest.js';
import { claim, DONE_LOG, enqueueOne, sleep } from './support.js';

export function recordCases(factory: StoreFactory): void {
  const test = storeTest(factory);

  test('lists a job parked with a wake time once, under its status, when no status is asked', async (store) => {
    const id = await enqueueOne(store);
    const [c] = await claim(store);
    const wakeAt = (await store.now()) + 60_000;
    await store.commit('default', [
      { kind: 'park', id, token: c!.token, wakeAt, snapshot: '{}', state: '"sleeping"', log: [] },
    ]);
    const all = (await store.list({ queue: 'default' })).jobs.map((j) => `${j.id} ${j.status}`);
    assert.deepEqual(all, [`${id} waiting`]);
    const waiting = (await store.list({ queue: 'default', status: 'waiting' })).jobs.map((j) => j.id);
    assert.deepEqual(waiting, [id]);
    assert.deepEqual((await store.list({ queue: 'default', status: 'queued' })).jobs, []);
  });

  test('counts each index, and lists every job exactly once across cursor pages', async (store) => {
    const ids = [];
    for (let i = 0; i < 7; i++) ids.push(await enqueueOne(store, { machine: i % 2 ? 'odd' : 'even' }));
    const [c] = await claim(store);
    await store.commit('default', [
      { kind: 'done', id: c!.id, token: c!.token, output: '1', snapshot: '', log: DONE_LOG },
    ]);
    await claim(store);
    const counts = await store.counts('default');
    assert.deepEqual([counts.queued, counts.active, counts.done], [5, 1, 1]);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const r = await store.list({ queue: 'default', limit: 2, cursor });
      seen.push(...r.jobs.map((j) => j.id));
      if (!r.cursor) break;
      cursor = r.cursor;
    }
    assert.deepEqual([...seen].sort(), [...ids].sort());
    const done = await store.list({ queue: 'default', status: 'done' });
    assert.deepEqual(
      done.jobs.map((j) => j.id),
      [c!.id],
    );
    const even = await store.list({ queue: 'default', machine: 'even', limit: 100 });
    assert.equal(even.jobs.length, 4);
    assert.deepEqual(await store.queues(), ['default']);
  });

  test(
    'deletes done records past the retention window at the reaper’s sweep, keeping dead letters',
    async (store) => {
      const done = await enqueueOne(store);
      const failed = await enqueueOne(store);
      const [a, b] = await claim(store, { max: 2 });
      await store.commit('default', [
        { kind: 'done', id: done, token: a!.token, output: '1', snapshot: '', log: DONE_LOG },
        { kind: 'fail', id: failed, token: b!.token, error: '{"name":"E","message":"m"}', log: [] },
      ]);
      await sleep(250);
      await store.reap('default', { maxLeaseRequeues: 5, lockMs: 1 });
      assert.equal(await store.getJob(done), null, 'the done record is gone');
      assert.equal((await store.getJob(failed))!.status, 'failed', 'a dead letter stays');
      const counts = await store.counts('default');
      assert.deepEqual([counts.done, counts.failed, counts.dead], [0, 0, 1]);
    },
    { finishedTtlMs: 200 },
  );
}
