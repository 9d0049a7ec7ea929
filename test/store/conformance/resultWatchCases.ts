// ROLE ResultWatch: a watched job's final record pushed to its watcher.

import assert from 'node:assert/strict';
import type { StoreFactory } from './storeFactory.js';
import { storeTest } from './storeTest.js';
import { claim, DONE_LOG, enqueueOne, newJob } from './support.js';

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

  test('an enqueue with a watcher makes the job watched: a minimal one that ends done before any other call is pushed to it', async (store) => {
    const [made] = await store.enqueue('default', [newJob({ minimal: true, watcher: 'w1' })]);
    assert.deepEqual(made, { id: made!.id, created: true, watched: true });
    const [c] = await claim(store);
    await store.commit('default', [
      { kind: 'done', id: c!.id, token: c!.token, output: '"r"', snapshot: '', log: DONE_LOG },
    ]);
    assert.equal(await store.getJob(c!.id, 'default'), null, 'the minimal record is gone');
    const got = await store.readResults('default', 'w1', 3000);
    assert.deepEqual(
      got.map((j) => [j.id, j.status, j.output]),
      [[made.id, 'done', 'r']],
    );
    // Without a watcher the answer is as before: no `watched`.
    const [plain] = await store.enqueue('default', [newJob({ minimal: true })]);
    assert.deepEqual(plain, { id: plain!.id, created: true });
  });

  test('an enqueue with a watcher that keeps an existing job watches it while it is unfinished', async (store) => {
    const id = await enqueueOne(store, { idempotencyKey: 'k', minimal: true });
    // The same id again (a resend), and another id the idempotency key names the job for.
    const [resent, keyed] = await store.enqueue('default', [
      newJob({ id, watcher: 'w2' }),
      newJob({ idempotencyKey: 'k', watcher: 'w3' }),
    ]);
    assert.deepEqual(resent, { id, created: false, watched: true });
    assert.deepEqual(keyed, { id, created: false, deduplicated: true, watched: true });
    const [c] = await claim(store);
    await store.commit('default', [
      { kind: 'done', id, token: c!.token, output: '1', snapshot: '', log: DONE_LOG },
    ]);
    for (const w of ['w2', 'w3'])
      assert.deepEqual(
        (await store.readResults('default', w, 3000)).map((j) => [j.id, j.status]),
        [[id, 'done']],
      );
    // Kept once more, its record gone: not watched (nothing will come), the caller reads it.
    const [gone] = await store.enqueue('default', [newJob({ idempotencyKey: 'k', watcher: 'w4' })]);
    assert.deepEqual(gone, { id, created: false, deduplicated: true });
    const full = await enqueueOne(store);
    const [c2] = await claim(store);
    await store.commit('default', [
      { kind: 'done', id: full, token: c2!.token, output: '2', snapshot: '', log: DONE_LOG },
    ]);
    const [finished] = await store.enqueue('default', [newJob({ id: full, watcher: 'w5' })]);
    assert.deepEqual(finished, { id: full, created: false }, 'a finished job is not watched');
  });
}
