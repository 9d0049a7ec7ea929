// ROLE WorkQueue and JobRecords, the two rules a worker's writes obey: THE FENCE (only the lease
// holder writes) and THE CANCEL GUARD (a running job asked to cancel ends cancelled at its next
// write).

import assert from 'node:assert/strict';
import type { StoreFactory } from './storeFactory.js';
import { storeTest } from './storeTest.js';
import { claim, DONE_LOG, enqueueOne } from './support.js';

export function fenceCases(factory: StoreFactory): void {
  const test = storeTest(factory);

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

  test('a checkpoint that keeps a cancel-requested job loading writes it; the one that makes it working ends it cancelled (THE CANCEL GUARD)', async (store) => {
    const id = await enqueueOne(store);
    // Watched: the checkpoint that ends it must read what an ending needs (its watchers too).
    await store.watchJob(id, 'default', 'watcher1');
    const { claimed } = await store.commit('default', [], {
      workerId: 'w',
      max: 1,
      leaseMs: 30_000,
      loadMachines: ['m'],
    });
    const token = claimed[0]!.token;
    assert.equal((await store.getJob(id))!.status, 'loading');
    assert.equal((await store.cancel(id)).result, 'requested');
    const checkpoint = (status: 'loading' | 'working', state: string) =>
      store.commit('default', [
        { kind: 'checkpoint', id, token, status, snapshot: `{"s":${state}}`, state, log: [] },
      ]);
    // Still loading: the checkpoint lands (a cancel ends a run at its next move, not at a save).
    assert.deepEqual((await checkpoint('loading', '"a"')).written, [true]);
    const loading = (await store.getJob(id))!;
    assert.deepEqual([loading.status, loading.state], ['loading', 'a']);
    // LOADED: the move to working is the cancel guard's, and the job ends cancelled.
    assert.deepEqual((await checkpoint('working', '"b"')).written, [true]);
    assert.equal((await store.getJob(id))!.status, 'cancelled');
    const pushed = await store.readResults('default', 'watcher1', 1000);
    assert.deepEqual(
      pushed.map((j) => [j.id, j.status]),
      [[id, 'cancelled']],
    );
    // A fenced-off checkpoint of the same shape changes nothing.
    assert.deepEqual((await checkpoint('working', '"c"')).written, [false]);
  });

  test('checkpoints and dones of several jobs in step, in one commit: a stale worker’s is refused, a cancel-requested LOADED ends its job cancelled, the others land (THE FENCE, THE CANCEL GUARD)', async (store) => {
    // (RedisStore sends ops that share their values as one run on the wire: encodeOps.ts.)
    const loadingId = await enqueueOne(store);
    const { claimed: loading } = await store.commit('default', [], {
      workerId: 'w',
      max: 1,
      leaseMs: 30_000,
      loadMachines: ['m'],
    });
    const ids = [loadingId];
    for (let i = 0; i < 4; i++) ids.push(await enqueueOne(store));
    const running = await claim(store, { max: 4 });
    const tokens = new Map([...loading, ...running].map((c) => [c.id, c.token]));
    const staleId = ids[3]!;
    tokens.set(staleId, 'someone-else:1');
    assert.equal((await store.cancel(loadingId)).result, 'requested');
    const staleBefore = (await store.getJob(staleId))!.state;
    const step = await store.commit(
      'default',
      ids.map((id) => ({
        kind: 'checkpoint' as const,
        id,
        token: tokens.get(id)!,
        status: 'working' as const,
        snapshot: '{"s":"a"}',
        state: '"a"',
        log: ['{"type":"state","state":"a"}'],
      })),
    );
    assert.deepEqual(step.written, [true, true, true, false, true]);
    const jobs = await Promise.all(ids.map(async (id) => (await store.getJob(id))!));
    assert.deepEqual(
      jobs.map((j) => [j.status, j.state]),
      [
        ['cancelled', 'a'],
        ['working', 'a'],
        ['working', 'a'],
        ['working', staleBefore],
        ['working', 'a'],
      ],
    );
    const live = [ids[1]!, ids[2]!, ids[4]!];
    const end = await store.commit(
      'default',
      [...live, staleId].map((id) => ({
        kind: 'done' as const,
        id,
        token: tokens.get(id)!,
        output: '7',
        snapshot: '{"s":"end"}',
        state: '"end"',
        log: ['{"type":"state","state":"end"}', '{"type":"done"}'],
      })),
    );
    assert.deepEqual(end.written, [true, true, true, false]);
    for (const id of live) {
      const job = (await store.getJob(id))!;
      assert.deepEqual([job.status, job.state, job.output], ['done', 'end', 7]);
      assert.deepEqual(
        (await store.getLog(id)).map((e) => e.type),
        ['enqueued', 'claimed', 'state', 'state', 'done'],
      );
    }
    assert.equal((await store.getJob(staleId))!.status, 'working');
  });
}
