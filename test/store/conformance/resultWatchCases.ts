// ROLE ResultWatch: a watched job's final record pushed to its watcher.

import assert from 'node:assert/strict';
import type { StoreFactory } from './storeFactory.js';
import { storeTest } from './storeTest.js';
import { claim, DONE_LOG, enqueueOne } from './support.js';

export function resultWatchCases(factory: StoreFactory): void {
  const test = storeTest(factory);

  test('pushes a watched job’s final record to its watcher', async (store) => {
    const id = await enqueueOne(store);
    const seen = await store.watchJob(id, 'default', 'watcher1');
    assert.equal(seen!.status, 'queued');
    assert.deepEqual(await store.readResults('default', 'watcher1', 10), []);
    const [c] = await claim(store);
    const reading = store.readResults('default', 'watcher1', 3000);
    await store.commit('default', [
      { kind: 'done', id, token: c!.token, output: '"r"', snapshot: '', log: DONE_LOG },
    ]);
    const got = await reading;
    assert.deepEqual(
      got.map((j) => [j.id, j.status, j.output]),
      [[id, 'done', 'r']],
    );
    assert.equal(await store.watchJob('missing', 'default', 'watcher1'), null);
  });
}
