// ROLE EventLog (and JobRecords.getLog): events named by the time they were written, each job's
// moves streamed in order, and its audit log kept.

import assert from 'node:assert/strict';
import type { StoreFactory } from './storeFactory.js';
import { storeTest } from './storeTest.js';
import { claim, DONE_LOG, enqueueOne } from './support.js';

export function eventLogCases(factory: StoreFactory): void {
  const test = storeTest(factory);

  test('names each event by the time it was written: reading from "<ms>-<n>" yields what came after that time', async (store) => {
    const before = await store.now();
    await enqueueOne(store);
    const events = await store.readEvents('default', `${before - 1}-99999999`, 0);
    assert.ok(events.length > 0, 'the enqueue is found from a time before it');
    for (const e of events)
      assert.ok(Number(e.cursor.split('-')[0]) >= before, `${e.cursor} is at or after ${before}`);
    const later = (await store.now()) + 1000;
    assert.deepEqual(await store.readEvents('default', `${later}-0`, 0), [], 'nothing after a later time');
  });

  test('streams each job’s moves, and keeps its audit log', async (store) => {
    const start = await store.lastEventCursor('default');
    const id = await enqueueOne(store);
    const [c] = await claim(store);
    await store.commit('default', [
      {
        kind: 'checkpoint',
        id,
        token: c!.token,
        status: 'working',
        progress: '{"p":50}',
        log: ['{"type":"state","state":"a"}'],
      },
    ]);
    await store.commit('default', [
      { kind: 'done', id, token: c!.token, output: '1', snapshot: '', log: DONE_LOG },
    ]);
    const events = (await store.readEvents('default', start, 0)).filter((e) => e.jobId === id);
    assert.deepEqual(
      events.map((e) => `${e.type}:${e.status}`),
      ['enqueued:queued', 'claimed:working', 'checkpoint:working', 'done:done'],
    );
    const after = await store.readEvents('default', events.at(-1)!.cursor, 0);
    assert.equal(after.length, 0, 'nothing after the last cursor');
    const log = await store.getLog(id);
    assert.deepEqual(
      log.map((e) => e.type),
      ['enqueued', 'claimed', 'state', 'done'],
    );
    assert.equal(log[2]!.state, 'a');
    assert.deepEqual((await store.getJob(id))!.progress, { p: 50 });
    await assert.rejects(store.getLog('nope'), { code: 'JOB_NOT_FOUND' });
  });
}
