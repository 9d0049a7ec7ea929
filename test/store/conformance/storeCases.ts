// The Store interface's behaviour, case by case, for any backend: what a worker's commit, the
// reaper, a client's cancel and send, and the reads must do. Each case gets a fresh store.

import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../../src/store/types.js';
import type { StoreFactory, StoreOptions } from './storeFactory.js';
import { DONE_LOG, claim, enqueueOne, newJob, sleep } from './support.js';

export function storeCases(factory: StoreFactory): void {
  const open: Store[] = [];
  const make = async (options?: StoreOptions) => {
    const s = await factory.make(options);
    open.push(s);
    return s;
  };
  /** Runs a case on a fresh store and closes it, passed or not. */
  const test = (name: string, fn: (store: Store) => Promise<void>, options?: StoreOptions) =>
    void it(name, async () => {
      const store = await make(options);
      try {
        await fn(store);
      } finally {
        await store.close();
      }
    });

  test('claims the highest priority band first, and in order of arrival within a band', async (store) => {
    const low = await enqueueOne(store, { band: 3 });
    const normal1 = await enqueueOne(store, { band: 2 });
    const critical = await enqueueOne(store, { band: 0 });
    const normal2 = await enqueueOne(store, { band: 2 });
    const order = (await claim(store, { max: 10 })).map((c) => c.id);
    assert.deepEqual(order, [critical, normal1, normal2, low]);
  });

  test('holds a delayed job back until it is due, and says when the next one is', async (store) => {
    const id = await enqueueOne(store, { delayMs: 150 });
    const before = await store.now();
    const res = await store.commit('default', [], { workerId: 'w', max: 1, leaseMs: 1000, loadMachines: [] });
    assert.equal(res.claimed.length, 0);
    assert.ok(res.nextDueAt !== null && res.nextDueAt >= before + 100, 'the due time is reported');
    assert.equal((await store.getJob(id))!.runAt, res.nextDueAt);
    assert.equal((await store.counts('default')).delayed, 1);
    await sleep(200);
    assert.deepEqual(
      (await claim(store)).map((c) => c.id),
      [id],
    );
  });

  test('refuses a write whose lease token is not the job holder’s (THE FENCE), and says so at a heartbeat', async (store) => {
    const id = await enqueueOne(store);
    const [c] = await claim(store);
    const res = await store.commit('default', [
      { kind: 'done', id, token: 'someone-else:1', output: '1', snapshot: '', log: DONE_LOG },
    ]);
    assert.deepEqual(res.written, [false]);
    assert.equal((await store.getJob(id))!.status, 'working');
    assert.deepEqual(
      await store.heartbeat(
        'default',
        [
          { id, token: c!.token },
          { id, token: 'x:9' },
        ],
        1000,
      ),
      ['held', 'lost'],
    );
    const ok = await store.commit('default', [
      { kind: 'done', id, token: c!.token, output: '7', snapshot: '', log: DONE_LOG },
    ]);
    assert.deepEqual(ok.written, [true]);
    const job = (await store.getJob(id))!;
    assert.equal(job.status, 'done');
    assert.equal(job.output, 7);
    // The job is done: its old lease writes nothing more.
    const late = await store.commit('default', [{ kind: 'requeue', id, token: c!.token, log: [] }]);
    assert.deepEqual(late.written, [false]);
  });

  test('requeues a job whose lease passed, and fails it with LEASE_EXPIRED past its budget', async (store) => {
    const id = await enqueueOne(store);
    await claim(store, { leaseMs: 30 });
    await sleep(60);
    assert.deepEqual(await store.reap('default', { maxLeaseRequeues: 1, lockMs: 1 }), {
      requeued: [id],
      failed: [],
    });
    const requeued = (await store.getJob(id))!;
    assert.equal(requeued.status, 'queued');
    assert.equal(requeued.leaseRequeues, 1);
    const [again] = await claim(store, { leaseMs: 30 });
    assert.equal(again!.leaseRequeues, 1);
    await sleep(60);
    const r = await store.reap('default', { maxLeaseRequeues: 1, lockMs: 1 });
    assert.deepEqual(r, { requeued: [], failed: [id] });
    const failed = (await store.getJob(id))!;
    assert.equal(failed.status, 'failed');
    assert.equal(failed.error?.code, 'LEASE_EXPIRED');
    assert.deepEqual(
      (await store.deadLetters('default', 10)).map((d) => d.id),
      [id],
    );
  });

  test('tells the reaper when the earliest lease passes, and lets its lock lapse by then', async (store) => {
    const idle = await store.reap('default', { maxLeaseRequeues: 1, lockMs: 1 });
    assert.equal(idle.nextDueMs, undefined, 'no job runs: nothing is due');
    const id = await enqueueOne(store);
    await claim(store, { leaseMs: 400 });
    await sleep(5);
    const r = await store.reap('default', { maxLeaseRequeues: 1, lockMs: 60_000 });
    assert.deepEqual(r.requeued, []);
    assert.ok(r.nextDueMs !== undefined && r.nextDueMs > 200 && r.nextDueMs <= 400, `due in ${r.nextDueMs}`);
    // A caller inside the lock reaps nothing and is told the same time, not the lock's minute.
    const locked = await store.reap('default', { maxLeaseRequeues: 1, lockMs: 60_000 });
    assert.deepEqual(locked.requeued, []);
    assert.ok(locked.nextDueMs !== undefined && locked.nextDueMs <= 400, `due in ${locked.nextDueMs}`);
    await sleep(locked.nextDueMs + 20);
    assert.deepEqual((await store.reap('default', { maxLeaseRequeues: 1, lockMs: 60_000 })).requeued, [id]);
  });

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

  test('delivers events to a job’s inbox in order, once per event id, waking it when parked', async (store) => {
    const id = await enqueueOne(store);
    const [c] = await claim(store);
    await store.commit('default', [
      { kind: 'park', id, token: c!.token, wakeAt: null, snapshot: '{}', log: [] },
    ]);
    assert.equal((await claim(store)).length, 0, 'parked without a wake time: nothing to claim');
    assert.equal(await store.send('default', id, '{"type":"A"}', 'A', 'e1'), true);
    assert.equal(
      await store.send('default', id, '{"type":"A"}', 'A', 'e1'),
      false,
      'a resend is not delivered twice',
    );
    assert.equal(await store.send('default', id, '{"type":"B"}', 'B', 'e2'), true);
    assert.deepEqual(await store.readInbox(id, 'default', 0), ['{"type":"A"}', '{"type":"B"}']);
    assert.deepEqual(await store.readInbox(id, 'default', 1), ['{"type":"B"}']);
    const [woken] = await claim(store);
    assert.equal(woken!.id, id);
    assert.equal(woken!.hasInbox, true);
    await store.commit('default', [
      { kind: 'done', id, token: woken!.token, output: 'null', snapshot: '', log: DONE_LOG },
    ]);
    await assert.rejects(store.send('default', id, '{"type":"C"}', 'C', 'e3'), { code: 'JOB_FINISHED' });
    await assert.rejects(store.send('default', 'nope', '{"type":"C"}', 'C', 'e4'), { code: 'JOB_NOT_FOUND' });
  });

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
      await store.childIds('default', parent, 0, 10),
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
    assert.deepEqual(await store.fanGroups('default', parent), [{ group: 'kids', total: 2, finished: 2 }]);
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

  test('cancels a queued job at once; a running one ends cancelled at its next retry (THE CANCEL GUARD)', async (store) => {
    const queued = await enqueueOne(store, { band: 3 });
    const running = await enqueueOne(store, { band: 0 });
    const [c] = await claim(store);
    assert.equal(c!.id, running);
    assert.deepEqual(await store.cancel(queued, undefined, 'not needed'), {
      result: 'cancelled',
      status: 'cancelled',
      hasChildren: false,
      queue: 'default',
    });
    const r = await store.cancel(running);
    assert.deepEqual([r.result, r.status], ['requested', 'working']);
    // A second cancel (a user clicking twice, a resend) asks again but is logged once.
    assert.deepEqual((await store.cancel(running)).result, 'requested');
    assert.equal((await store.jobStatus(running, 'default'))!.cancelRequested, true);
    assert.deepEqual(await store.heartbeat('default', [{ id: running, token: c!.token }], 1000), ['cancel']);
    const error = JSON.stringify({ name: 'Error', message: 'x' });
    const res = await store.commit('default', [
      { kind: 'retry', id: running, token: c!.token, error, delayMs: 0, attempt: 2, log: [] },
    ]);
    assert.deepEqual(res.written, [true]);
    assert.equal((await store.getJob(running))!.status, 'cancelled');
    assert.equal((await store.cancel(running)).result, 'finished');
    const log = await store.getLog(running);
    assert.deepEqual(
      log.map((e) => e.type),
      ['enqueued', 'claimed', 'cancel-requested', 'cancelled'],
    );
    assert.equal((await store.getLog(queued)).at(-1)!.reason, 'not needed');
    await assert.rejects(store.cancel('nope'), { code: 'JOB_NOT_FOUND' });
  });

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

  test('returns the existing job for a repeated idempotency key or id, making nothing', async (store) => {
    const first = newJob({ idempotencyKey: 'order-1' });
    const [a] = await store.enqueue('default', [first]);
    const [b] = await store.enqueue('default', [newJob({ idempotencyKey: 'order-1' })]);
    const [c] = await store.enqueue('default', [first]);
    assert.deepEqual(
      [a, b, c],
      [
        { id: first.id, created: true },
        { id: first.id, created: false },
        { id: first.id, created: false },
      ],
    );
    assert.equal((await store.counts('default')).queued, 1);
  });

  test('refuses a malformed commit as a whole, writing nothing', async (store) => {
    const id = await enqueueOne(store);
    const [c] = await claim(store);
    await assert.rejects(
      store.commit('default', [
        { kind: 'done', id, token: c!.token, output: '1', snapshot: '', log: DONE_LOG },
        { kind: 'checkpoint', id, token: c!.token, status: 'done' as never, log: [] },
      ]),
      /BAD_COMMIT 2/,
    );
    assert.equal((await store.getJob(id))!.status, 'working', 'the valid op before it was not applied');
  });

  if (factory.claimInKilledProcess) {
    const claimInKilledProcess = factory.claimInKilledProcess;
    test('requeues the job of a worker process that was killed, once its lease passes', async (store) => {
      const id = await enqueueOne(store);
      assert.equal(await claimInKilledProcess(store, 'default', 200), id);
      assert.equal((await store.getJob(id))!.status, 'working');
      await sleep(300);
      assert.deepEqual((await store.reap('default', { maxLeaseRequeues: 5, lockMs: 1 })).requeued, [id]);
      assert.equal((await claim(store))[0]!.id, id);
    });
  } else {
    it('requeues the job of a worker process that was killed, once its lease passes', {
      skip: `${factory.name} lives in one process: no worker in another process can hold its leases (a lease that passes in-process is the lease case above)`,
    });
  }
}
