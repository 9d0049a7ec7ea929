// ROLE DeadLetters: a failed job listed, redriven and purged; one purged by id; a broken job set
// aside apart from the dead letters.

import assert from 'node:assert/strict';
import type { StoreFactory } from './storeFactory.js';
import { storeTest } from './storeTest.js';
import { claim, enqueueOne } from './support.js';

export function deadLetterCases(factory: StoreFactory): void {
  const test = storeTest(factory);

  test('lists a failed job as a dead letter, redrives it with fresh attempts, and purges dead letters', async (store) => {
    const id = await enqueueOne(store, { input: '{"n":1}' });
    const [c] = await claim(store);
    const error = JSON.stringify({ name: 'Error', message: 'no', code: 'E_NO' });
    await store.commit('default', [{ kind: 'fail', id, token: c!.token, error, log: ['{"type":"failed"}'] }]);
    const [dl] = await store.deadLetters('default', 10);
    assert.deepEqual(
      { id: dl!.id, input: dl!.input, code: dl!.error?.code },
      { id, input: { n: 1 }, code: 'E_NO' },
    );
    assert.equal((await store.counts('default')).dead, 1);
    await store.retryDeadLetter(id);
    const redriven = (await store.getJob(id))!;
    assert.deepEqual(
      { status: redriven.status, error: redriven.error, finishedAt: redriven.finishedAt },
      { status: 'queued', error: null, finishedAt: null },
    );
    assert.equal((await store.counts('default')).dead, 0);
    const [again] = await claim(store);
    await store.commit('default', [{ kind: 'fail', id, token: again!.token, error, log: [] }]);
    assert.equal(await store.purgeDeadLetters('default'), 1);
    assert.equal((await store.deadLetters('default', 10)).length, 0);
    await assert.rejects(store.retryDeadLetter(id), { code: 'JOB_NOT_FOUND' });
  });

  test('purges one dead letter by id, leaving the others; an id in neither set purges nothing', async (store) => {
    const error = JSON.stringify({ name: 'Error', message: 'no' });
    const ids = [await enqueueOne(store), await enqueueOne(store)];
    for (const c of await claim(store, { max: 2 }))
      await store.commit('default', [{ kind: 'fail', id: c.id, token: c.token, error, log: [] }]);
    assert.equal((await store.counts('default')).dead, 2);
    assert.equal(await store.purgeDeadLetter(ids[0]!, 'default'), true);
    assert.deepEqual(
      (await store.deadLetters('default', 10)).map((d) => d.id),
      [ids[1]],
    );
    assert.equal(await store.purgeDeadLetter(ids[0]!, 'default'), false, 'purged already');
    const live = await enqueueOne(store);
    assert.equal(await store.purgeDeadLetter(live, 'default'), false, 'a queued job is no dead letter');
    assert.equal((await store.getJob(live))!.status, 'queued');
  });

  test('sets a broken job aside with its reason, apart from the dead letters', async (store) => {
    const id = await enqueueOne(store);
    const [c] = await claim(store);
    const error = JSON.stringify({
      name: 'Error',
      message: 'no machine named m here',
      code: 'UNKNOWN_MACHINE',
    });
    await store.commit('default', [{ kind: 'broken', id, token: c!.token, error, log: [] }]);
    const broken = await store.broken('default', 10);
    assert.deepEqual(
      broken.map((b) => [b.id, b.reason]),
      [[id, 'no machine named m here']],
    );
    const counts = await store.counts('default');
    assert.deepEqual([counts.broken, counts.dead, counts.failed], [1, 0, 1]);
  });
}
