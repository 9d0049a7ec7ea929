// ROLE FanOut: children's outcomes recorded once into their parent's fan-out record (waking it),
// and relayed through the outbox to a parent on another queue.

import assert from 'node:assert/strict';
import type { StoreFactory } from './storeFactory.js';
import { storeTest } from './storeTest.js';
import { claim, DONE_LOG, enqueueOne, newJob } from './support.js';

export function fanOutCases(factory: StoreFactory): void {
  const test = storeTest(factory);

  test('records each child’s outcome once, and wakes the parked parent when all are done', async (store) => {
    const parent = await enqueueOne(store);
    const [p] = await claim(store);
    await store.fanOpen(parent, 'default', 'kids', 2, 'collect');
    const kids = [0, 1].map((index) =>
      newJob({ id: `${parent}.kids.${index}`, parentId: parent, group: 'kids', index, parentQueue: '' }),
    );
    await store.enqueue('default', kids);
    assert.deepEqual(
      (await store.enqueue('default', kids)).map((r) => r.created),
      [false, false],
      'a repeat makes nothing',
    );
    assert.deepEqual(
      await store.childIds(parent, 'default', 0, 10),
      kids.map((k) => k.id),
    );
    await store.commit('default', [
      { kind: 'park', id: parent, token: p!.token, wakeAt: null, snapshot: '{}', log: [] },
    ]);
    const children = await claim(store, { max: 2 });
    assert.equal(children[0]!.parentState, 'live');
    await store.commit('default', [
      {
        kind: 'done',
        id: children[0]!.id,
        token: children[0]!.token,
        output: '"a"',
        snapshot: '',
        log: DONE_LOG,
      },
    ]);
    assert.equal((await store.getJob(parent))!.status, 'waiting', 'one of two: still waiting');
    const error = JSON.stringify({ name: 'Error', message: 'b broke' });
    await store.commit('default', [
      { kind: 'fail', id: children[1]!.id, token: children[1]!.token, error, log: [] },
    ]);
    const woken = (await store.getJob(parent))!;
    assert.equal(woken.status, 'queued');
    assert.deepEqual(woken.progress, { children: { done: 2, total: 2 } });
    const fan = await store.fanOpen(parent, 'default', 'kids', 2, 'collect');
    assert.deepEqual([fan.finished, fan.failed], [2, 1]);
    const byIndex = [...fan.results].map(([i, r]) => [i, JSON.parse(r).s]).sort();
    assert.deepEqual(byIndex, [
      [0, 'done'],
      [1, 'failed'],
    ]);
    assert.deepEqual(await store.fanGroups(parent, 'default'), [{ group: 'kids', total: 2, finished: 2 }]);
  });

  test('relays a child’s outcome to a parent on another queue through the outbox', async (store) => {
    const parent = await enqueueOne(store, {}, 'main');
    await claim(store, { queue: 'main' });
    await store.fanOpen(parent, 'main', 'g', 1, 'failFast');
    await store.enqueue('side', [
      newJob({ id: `${parent}.g.0`, parentId: parent, group: 'g', index: 0, parentQueue: 'main' }),
    ]);
    const [kid] = await claim(store, { queue: 'side' });
    assert.equal(kid!.parentQueue, 'main');
    await store.commit('side', [
      { kind: 'done', id: kid!.id, token: kid!.token, output: '5', snapshot: '', log: DONE_LOG },
    ]);
    assert.equal(
      (await store.fanOpen(parent, 'main', 'g', 1, 'failFast')).finished,
      0,
      'not before the relay',
    );
    assert.deepEqual(await store.relayOutbox('side'), { relayed: 1, dropped: [], more: false });
    assert.equal((await store.relayOutbox('side')).relayed, 0);
    const fan = await store.fanOpen(parent, 'main', 'g', 1, 'failFast');
    assert.deepEqual([fan.finished, fan.results.get(0)], [1, '{"s":"done","o":5}']);
  });
}
