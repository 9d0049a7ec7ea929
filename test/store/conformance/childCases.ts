// Fan-out and retention cases for any backend (issue 21): a cross-queue child's outcome reaches
// its parent even when retention deleted the child's record first; a fan-out write of a worker
// whose lease passed is refused (LEASE_LOST) and makes nothing.

import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../../src/store/types.js';
import type { StoreFactory, StoreOptions } from './storeFactory.js';
import { DONE_LOG, claim, enqueueOne, newJob, sleep } from './support.js';

export function childCases(factory: StoreFactory): void {
  const test = (name: string, fn: (store: Store) => Promise<void>, options?: StoreOptions) =>
    void it(name, async () => {
      const store = await factory.make(options);
      try {
        await fn(store);
      } finally {
        await store.close();
      }
    });

  /** A running parent on `parents` with one fan-out group of `total`: its id and lease token. */
  async function runningParent(store: Store, total: number): Promise<{ parent: string; token: string }> {
    const parent = await enqueueOne(store, {}, 'parents');
    const [c] = await claim(store, { queue: 'parents' });
    await store.fanOpen(parent, 'parents', 'g', total, 'collect', c!.token);
    return { parent, token: c!.token };
  }

  test(
    'relays a cross-queue child’s outcome to its parent even after retention deleted the child’s record',
    async (store) => {
      const { parent, token } = await runningParent(store, 1);
      const child = `${parent}.g.0`;
      await store.enqueue('kids', [
        newJob({
          id: child,
          parentId: parent,
          parentQueue: 'parents',
          group: 'g',
          index: 0,
          parentToken: token,
        }),
      ]);
      const [k] = await claim(store, { queue: 'kids' });
      await store.commit('kids', [
        { kind: 'done', id: child, token: k!.token, output: '{"n":7}', snapshot: '', log: DONE_LOG },
      ]);
      // The relay is late (its worker died after the child's ending): retention runs first.
      await sleep(300);
      await store.reap('kids', { maxLeaseRequeues: 5, lockMs: 1 });
      assert.equal(await store.getJob(child, 'kids'), null, 'the child’s record is gone');
      assert.deepEqual(await store.relayOutbox('kids'), { relayed: 1, dropped: [], more: false });
      const fan = await store.fanOpen(parent, 'parents', 'g', 1, 'collect', token);
      assert.equal(fan.finished, 1);
      assert.equal(fan.results.get(0), '{"s":"done","o":{"n":7}}');
      assert.equal((await store.relayOutbox('kids')).relayed, 0, 'the outbox is empty');
    },
    { finishedTtlMs: 200 },
  );

  test('refuses the fan-out writes of a worker whose lease passed (LEASE_LOST), making nothing', async (store) => {
    const parent = await enqueueOne(store, {}, 'parents');
    const [c] = await claim(store, { queue: 'parents' });
    const stale = c!.token;
    // The lease passed: the reaper requeued the parent, another worker ran it to its end.
    await store.commit('parents', [{ kind: 'requeue', id: parent, token: stale, log: [] }]);
    const [again] = await claim(store, { queue: 'parents', workerId: 'w2' });
    await store.commit('parents', [
      { kind: 'done', id: parent, token: again!.token, output: '1', snapshot: '', log: DONE_LOG },
    ]);
    await assert.rejects(store.fanOpen(parent, 'parents', 'late', 2, 'collect', stale), {
      code: 'LEASE_LOST',
    });
    const kid = (i: number, queue: string) =>
      newJob({
        id: `${parent}.late.${i}`,
        parentId: parent,
        parentQueue: queue === 'parents' ? '' : 'parents',
        group: 'late',
        index: i,
        parentToken: stale,
      });
    await assert.rejects(store.enqueue('parents', [kid(0, 'parents')]), { code: 'LEASE_LOST' });
    assert.equal(await store.getJob(`${parent}.late.0`, 'parents'), null, 'no child was made');
    assert.deepEqual(await store.childIds(parent, 'parents', 0, 10), []);
    assert.deepEqual(await store.fanGroups(parent, 'parents'), [], 'no fan-out was opened');
  });

  test(
    'makes no record for a fan-out of a parent that retention deleted (no phantom job)',
    async (store) => {
      const parent = await enqueueOne(store, {}, 'parents');
      const [c] = await claim(store, { queue: 'parents' });
      await store.commit('parents', [
        { kind: 'done', id: parent, token: c!.token, output: '1', snapshot: '', log: DONE_LOG },
      ]);
      await sleep(300);
      await store.reap('parents', { maxLeaseRequeues: 5, lockMs: 1 });
      assert.equal(await store.getJob(parent, 'parents'), null);
      await assert.rejects(store.fanOpen(parent, 'parents', 'g', 2, 'collect', c!.token), {
        code: 'LEASE_LOST',
      });
      assert.equal(await store.getJob(parent, 'parents'), null, 'no record was made');
      assert.deepEqual(await store.fanGroups(parent, 'parents'), []);
    },
    { finishedTtlMs: 200 },
  );
}
