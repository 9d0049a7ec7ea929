// ROLE Schedules (optional): the compare-and-set on a schedule's revision, the claim that holds a
// due schedule for a lease, and what is not claimed (paused, not yet due, held, removed).

import assert from 'node:assert/strict';
import { hasSchedules, type Schedules, type Store } from '../../../src/store/types.js';
import type { StoreFactory } from './storeFactory.js';
import { storeTest } from './storeTest.js';

function schedulesOf(store: Store): Store & Schedules {
  assert.ok(hasSchedules(store), 'the backend has the Schedules role');
  return store;
}

export function scheduleCases(factory: StoreFactory): void {
  const test = storeTest(factory);

  test('writes a schedule only at the revision the writer read (THE COMPARE-AND-SET)', async (store) => {
    const s = schedulesOf(store);
    assert.equal(await s.putSchedule('a', '{"v":1}', 100, 0), 1);
    assert.equal(await s.putSchedule('a', '{"v":2}', 100, 0), null, 'create-only refused once it exists');
    assert.equal(await s.putSchedule('a', '{"v":2}', 200, 1), 2);
    assert.equal(await s.putSchedule('a', '{"v":3}', 300, 1), null, 'a stale revision writes nothing');
    assert.deepEqual(await s.getSchedule('a'), {
      id: 'a',
      body: '{"v":2}',
      state: null,
      recent: [],
      rev: 2,
      dueAt: 200,
    });
    assert.equal(await s.putSchedule('a', '{"v":3}', null), 3, 'no expected revision: any');
    assert.equal((await s.getSchedule('a'))!.dueAt, null);
    assert.equal(await s.getSchedule('none'), null);
  });

  test("writes a claim's schedules in one step, each by its own compare-and-set", async (store) => {
    const s = schedulesOf(store);
    await s.putSchedule('a', '{}', 0);
    await s.putSchedule('b', '{}', 0);
    await s.putSchedule('b', '{"changed":true}', 0);
    assert.deepEqual(
      await s.putSchedules([
        { id: 'a', body: '{"n":1}', dueAt: 500, expectedRev: 1 },
        { id: 'b', body: '{"n":1}', dueAt: 500, expectedRev: 1 },
      ]),
      [2, null],
    );
    assert.deepEqual(
      (await s.listSchedules()).map((x) => [x.id, x.body, x.rev, x.dueAt]),
      [
        ['a', '{"n":1}', 2, 500],
        ['b', '{"changed":true}', 2, 0],
      ],
    );
    await assert.rejects(s.putSchedules([{ id: '', body: '{}', dueAt: null, expectedRev: 0 }]), {
      code: 'BAD_SCHEDULE',
    });
  });

  test("keeps a tick's state apart: a write that keeps the body, appends actions, and keeps the last 20", async (store) => {
    const s = schedulesOf(store);
    const now = await store.now();
    const part = (state: string, n: number, from = 0) => ({
      state,
      actions: Array.from({ length: n }, (_, i) => `a${from + i}`),
    });
    assert.equal(await s.putSchedule('a', '{"spec":1}', now - 1, 0, false, part('{"t":0}', 2)), 1);
    const [c] = (await s.claimSchedules(10, 60_000)).due;
    assert.deepEqual(
      [c!.body, c!.state, c!.recent],
      ['{"spec":1}', '{"t":0}', []],
      'a claim sends no actions',
    );
    assert.deepEqual(
      await s.putSchedules([{ id: 'a', body: null, dueAt: 5, expectedRev: 1, part: part('{"t":1}', 25, 2) }]),
      [2],
    );
    const got = (await s.getSchedule('a'))!;
    assert.deepEqual([got.body, got.state, got.dueAt], ['{"spec":1}', '{"t":1}', 5], 'the body kept');
    assert.deepEqual(
      got.recent,
      Array.from({ length: 20 }, (_, i) => `a${i + 7}`),
      'the newest 20, oldest first',
    );
    assert.deepEqual(
      await s.putSchedules([{ id: 'gone', body: null, dueAt: 5, expectedRev: 3, part: part('{}', 0) }]),
      [null],
      'a kept body of a schedule that is gone: the compare-and-set fails, nothing is made',
    );
    assert.equal(await s.getSchedule('gone'), null);
    await assert.rejects(
      s.putSchedules([{ id: 'x', body: null, dueAt: 5, expectedRev: 0, part: part('{}', 0) }]),
      {
        code: 'BAD_SCHEDULE',
      },
    );
    assert.equal(
      await s.putSchedule('a', '{"whole":true}', 7, 2),
      3,
      'written whole (no part): state and recent go',
    );
    assert.deepEqual(await s.getSchedule('a'), {
      id: 'a',
      body: '{"whole":true}',
      state: null,
      recent: [],
      rev: 3,
      dueAt: 7,
    });
    assert.equal(await s.removeSchedule('a'), true);
    assert.equal(await s.putSchedule('a', '{}', 7, 0, false, part('{}', 0)), 1);
    assert.deepEqual((await s.getSchedule('a'))!.recent, [], 'a removed schedule leaves no actions behind');
  });

  test('claims the due schedules once, holding them for the lease; not the paused or future ones', async (store) => {
    const s = schedulesOf(store);
    const now = await store.now();
    await s.putSchedule('due1', '{}', now - 10);
    await s.putSchedule('due2', '{}', now - 5);
    await s.putSchedule('later', '{}', now + 3_600_000);
    await s.putSchedule('paused', '{}', null);
    const c = await s.claimSchedules(10, 60_000);
    assert.deepEqual(
      c.due.map((d) => [d.id, d.rev, d.body]),
      [
        ['due1', 1, '{}'],
        ['due2', 1, '{}'],
      ],
    );
    assert.ok(c.now >= now);
    assert.equal(c.next, c.now + 60_000, 'the earliest due time left: the held ones, at their lease end');
    assert.deepEqual((await s.claimSchedules(10, 60_000)).due, [], 'held: another claim passes them by');
    assert.deepEqual(
      (await s.listSchedules()).map((x) => x.id),
      ['due1', 'due2', 'later', 'paused'],
    );
    assert.equal(await s.removeSchedule('due1'), true);
    assert.equal(await s.removeSchedule('due1'), false);
  });

  test('a schedule whose holder let the lease pass is claimed again', async (store) => {
    const s = schedulesOf(store);
    await s.putSchedule('x', '{}', 0);
    assert.equal((await s.claimSchedules(1, 100)).due.length, 1);
    const until = Date.now() + 10_000;
    let again = 0;
    while (again === 0 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 50));
      again = (await s.claimSchedules(1, 100)).due.length;
    }
    assert.equal(again, 1);
  });

  test('wakes a schedule due later to now, not a paused, a missing or an already due one, its revision kept', async (store) => {
    const s = schedulesOf(store);
    const now = await store.now();
    await s.putSchedule('later', '{}', now + 3_600_000);
    await s.putSchedule('paused', '{}', null);
    await s.putSchedule('due', '{}', now - 1000);
    assert.equal(await s.wakeSchedules(['later', 'paused', 'due', 'missing']), 1);
    const later = (await s.getSchedule('later'))!;
    assert.ok(later.dueAt! <= (await store.now()), 'due now');
    assert.equal(later.rev, 1);
    assert.equal((await s.getSchedule('paused'))!.dueAt, null, 'a paused one stays out of the claims');
    assert.equal((await s.getSchedule('due'))!.dueAt, now - 1000);
    assert.equal(await s.getSchedule('missing'), null);
    assert.deepEqual((await s.claimSchedules(10, 60_000)).due.map((d) => d.id).sort(), ['due', 'later']);
    assert.equal(await s.wakeSchedules([]), 0);
  });
}
