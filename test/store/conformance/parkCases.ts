// ROLE WorkQueue (and JobRecords.send), a job that waits: a retry after its backoff, a park until
// a wake time, and events delivered to a job's inbox.

import assert from 'node:assert/strict';
import type { StoreFactory } from './storeFactory.js';
import { storeTest } from './storeTest.js';
import { claim, DONE_LOG, enqueueOne, sleep } from './support.js';

export function parkCases(factory: StoreFactory): void {
  const test = storeTest(factory);

  test('retries after the backoff delay with the next attempt, logging why', async (store) => {
    const id = await enqueueOne(store);
    const [c] = await claim(store);
    const error = JSON.stringify({ name: 'Error', message: 'flaky' });
    const res = await store.commit('default', [
      {
        kind: 'retry',
        id,
        token: c!.token,
        error,
        delayMs: 100,
        attempt: 2,
        log: ['{"type":"retry-scheduled","attempt":2}'],
      },
    ]);
    assert.deepEqual(res.written, [true]);
    const waiting = (await store.getJob(id))!;
    assert.equal(waiting.status, 'queued');
    assert.equal(waiting.attempts, 2);
    assert.equal(waiting.error?.message, 'flaky');
    assert.equal((await claim(store)).length, 0, 'not before its delay');
    await sleep(150);
    const [second] = await claim(store);
    assert.equal(second!.attempt, 2);
    const types = (await store.getLog(id)).map(
      (e) => e.type + (typeof e.attempt === 'number' ? `@${e.attempt}` : ''),
    );
    assert.deepEqual(types, ['enqueued', 'claimed', 'retry-scheduled@2', 'claimed@2']);
  });

  test('parks a job until its wake time, holding no lease meanwhile', async (store) => {
    const id = await enqueueOne(store);
    const [c] = await claim(store);
    const wakeAt = (await store.now()) + 150;
    const res = await store.commit('default', [
      { kind: 'park', id, token: c!.token, wakeAt, snapshot: '{"w":1}', state: '"sleeping"', log: [] },
    ]);
    assert.deepEqual(res.written, [true]);
    const parked = (await store.getJob(id))!;
    assert.deepEqual([parked.status, parked.state, parked.runAt], ['waiting', 'sleeping', wakeAt]);
    assert.deepEqual(await store.heartbeat('default', [{ id, token: c!.token }], 1000), ['lost']);
    assert.equal((await claim(store)).length, 0);
    await sleep(200);
    const [woken] = await claim(store);
    assert.equal(woken!.id, id);
    assert.equal(woken!.snapshot, '{"w":1}', 'it resumes from its parked snapshot');
  });

  test('delivers events to a job’s inbox in order, once per event id, waking it when parked', async (store) => {
    const id = await enqueueOne(store);
    const [c] = await claim(store);
    await store.commit('default', [
      { kind: 'park', id, token: c!.token, wakeAt: null, snapshot: '{}', log: [] },
    ]);
    assert.equal((await claim(store)).length, 0, 'parked without a wake time: nothing to claim');
    assert.equal(await store.send(id, 'default', '{"type":"A"}', 'A', 'e1'), true);
    assert.equal(
      await store.send(id, 'default', '{"type":"A"}', 'A', 'e1'),
      false,
      'a resend is not delivered twice',
    );
    assert.equal(await store.send(id, 'default', '{"type":"B"}', 'B', 'e2'), true);
    assert.deepEqual(await store.readInbox(id, 'default', 0), ['{"type":"A"}', '{"type":"B"}']);
    assert.deepEqual(await store.readInbox(id, 'default', 1), ['{"type":"B"}']);
    const [woken] = await claim(store);
    assert.equal(woken!.id, id);
    assert.equal(woken!.hasInbox, true);
    await store.commit('default', [
      { kind: 'done', id, token: woken!.token, output: 'null', snapshot: '', log: DONE_LOG },
    ]);
    await assert.rejects(store.send(id, 'default', '{"type":"C"}', 'C', 'e3'), { code: 'JOB_FINISHED' });
    await assert.rejects(store.send('nope', 'default', '{"type":"C"}', 'C', 'e4'), { code: 'JOB_NOT_FOUND' });
  });
}
