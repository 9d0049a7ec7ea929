// Retention of failed records for any backend (issue 21): dead letters and broken jobs expire
// after failedTtlMs, and each set keeps at most deadLetterMax entries, the oldest trimmed, by the
// same sweep that deletes finished records.

import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../../src/store/types.js';
import type { StoreFactory, StoreOptions } from './storeFactory.js';
import { claim, enqueueOne, sleep } from './support.js';

const ERR = '{"name":"E","message":"m"}';

export function retentionCases(factory: StoreFactory): void {
  const test = (name: string, fn: (store: Store) => Promise<void>, options?: StoreOptions) =>
    void it(name, async () => {
      const store = await factory.make(options);
      try {
        await fn(store);
      } finally {
        await store.close();
      }
    });

  /** Fails `n` jobs of `default` one after another; their ids, oldest first. */
  async function failJobs(store: Store, n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const id = await enqueueOne(store);
      const [c] = await claim(store);
      await store.commit('default', [{ kind: 'fail', id, token: c!.token, error: ERR, log: [] }]);
      ids.push(id);
      await sleep(2);
    }
    return ids;
  }

  test(
    'deletes failed records (dead letters) past failedTtlMs at the reaper’s sweep',
    async (store) => {
      const [old] = await failJobs(store, 1);
      await sleep(300);
      const [young] = await failJobs(store, 1);
      await store.reap('default', { maxLeaseRequeues: 5, lockMs: 1 });
      assert.equal(await store.getJob(old!), null, 'the old dead letter is gone');
      assert.equal((await store.getJob(young!))!.status, 'failed', 'a young one stays');
      assert.deepEqual(
        (await store.deadLetters('default', 10)).map((j) => j.id),
        [young],
      );
      assert.equal((await store.counts('default')).dead, 1);
    },
    { failedTtlMs: 200 },
  );

  test(
    'keeps at most deadLetterMax dead letters, trimming the oldest at the reaper’s sweep',
    async (store) => {
      const ids = await failJobs(store, 5);
      await store.reap('default', { maxLeaseRequeues: 5, lockMs: 1 });
      const kept = (await store.deadLetters('default', 10)).map((j) => j.id).sort();
      assert.deepEqual(kept, ids.slice(2).sort(), 'the three newest stay');
      assert.equal(await store.getJob(ids[0]!), null, 'the oldest record is gone');
      assert.equal(await store.getJob(ids[1]!), null);
      assert.equal((await store.counts('default')).dead, 3);
    },
    { deadLetterMax: 3 },
  );
}
