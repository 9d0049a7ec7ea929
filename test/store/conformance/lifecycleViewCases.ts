// A job's status has one source of truth, the store's record: the lifecycle a record shows
// (`snapshot.l`, and a simple job's `context`) says what the record's own fields say, after
// every move, including the moves no worker makes (a cancel of a job waiting for its retry, of
// a delayed or a parked job; the reaper failing a job past its lease budget; a redrive). The
// snapshots here are the forms the runtime writes (pipelineSnapshotText, a real Supervisor),
// and one is the form records stored before the lifecycle stopped being written (with an `l`).

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { setup, fromPromise } from 'xstate';
import { Client, Supervisor, defineJob, definePipeline } from '../../../src/index.js';
import type { AnyDefinition } from '../../../src/runtime/registry.js';
import type { JobRecord, Store } from '../../../src/store/types.js';
import { pipelineSnapshotText } from '../../../src/pipeline/pipelineEnding.js';
import type { StoreFactory } from './storeFactory.js';
import { claim, enqueueOne, sleep } from './support.js';

/** What a record's lifecycle view says: its status, attempt and max attempts. */
function lifecycleOf(rec: JobRecord): unknown {
  const l = (
    rec.snapshot as { l?: { value?: unknown; context?: { attempt?: unknown; maxAttempts?: unknown } } } | null
  )?.l;
  return { value: l?.value, attempt: l?.context?.attempt, maxAttempts: l?.context?.maxAttempts };
}

/** A pipeline's checkpoint in the form the runtime stores it (no lifecycle in it). */
const CHECKPOINT_TEXT = pipelineSnapshotText('{"status":"active","value":"a","context":{}}', '[]');

const FAST = { leaseMs: 2000, heartbeatMs: 500, reaperIntervalMs: 200 } as const;

export function lifecycleViewCases(factory: StoreFactory): void {
  /** Runs a case on a fresh store and closes it, passed or not. */
  const test = (name: string, fn: (store: Store) => Promise<void>) =>
    void it(name, async () => {
      const store = await factory.make();
      try {
        await fn(store);
      } finally {
        await store.close();
      }
    });

  const flakySimple = defineJob({
    name: 'flakySimple',
    retry: { maxAttempts: 3, backoff: { type: 'fixed', delayMs: 60_000 } },
    work: async () => {
      throw new Error('simple attempt failed');
    },
  });
  const flakyPipeline = definePipeline({
    name: 'flakyPipeline',
    retry: { maxAttempts: 3, backoff: { type: 'fixed', delayMs: 60_000 } },
    machine: setup({
      actors: {
        fail: fromPromise(async () => {
          throw new Error('pipeline attempt failed');
        }),
      },
    }).createMachine({
      id: 'flaky',
      initial: 'a',
      states: { a: { invoke: { id: 'fail', src: 'fail', onDone: 'b' } }, b: { type: 'final' } },
    }),
  });
  const jobs: AnyDefinition[] = [flakySimple, flakyPipeline];

  for (const name of ['flakySimple', 'flakyPipeline'])
    it(`${name}: a cancel of a job waiting for its retry shows cancelled, in its status and its lifecycle alike`, async () => {
      const store = await factory.make();
      const sup = new Supervisor({ store, jobs, concurrency: 2, logger: pino({ level: 'silent' }), ...FAST });
      const client = new Client({ store, jobs });
      try {
        await sup.start();
        const id = await client.enqueue(name, {});
        let waiting: JobRecord | null = null;
        for (let i = 0; i < 400 && !(waiting?.status === 'queued' && waiting.attempts === 2); i++) {
          await sleep(20);
          waiting = await client.get(id);
        }
        assert.deepEqual([waiting?.status, waiting?.attempts], ['queued', 2], 'waits for its retry');
        assert.deepEqual(lifecycleOf(waiting!), { value: 'queued', attempt: 2, maxAttempts: 3 });
        await client.cancel(id);
        const rec = (await client.get(id))!;
        assert.equal(rec.status, 'cancelled');
        assert.deepEqual(lifecycleOf(rec), { value: 'cancelled', attempt: 2, maxAttempts: 3 });
      } finally {
        await sup.stop({ graceMs: 0 });
        client.close();
        await store.close();
      }
    });

  test('a cancel of a delayed job, never claimed, shows cancelled in its lifecycle', async (store) => {
    const id = await enqueueOne(store, { delayMs: 60_000, maxAttempts: 2 });
    assert.deepEqual(lifecycleOf((await store.getJob(id))!), { value: 'queued', attempt: 1, maxAttempts: 2 });
    await store.cancel(id, 'default');
    const rec = (await store.getJob(id))!;
    assert.equal(rec.status, 'cancelled');
    assert.deepEqual(lifecycleOf(rec), { value: 'cancelled', attempt: 1, maxAttempts: 2 });
  });

  test('a parked pipeline shows waiting, and cancelled once cancelled', async (store) => {
    const id = await enqueueOne(store, { maxAttempts: 2 });
    const [c] = await claim(store);
    await store.commit('default', [
      {
        kind: 'park',
        id,
        token: c!.token,
        wakeAt: null,
        snapshot: CHECKPOINT_TEXT,
        state: '"a"',
        log: [],
      },
    ]);
    const parked = (await store.getJob(id))!;
    assert.equal(parked.status, 'waiting');
    assert.deepEqual(lifecycleOf(parked), { value: 'waiting', attempt: 1, maxAttempts: 2 });
    await store.cancel(id, 'default');
    const rec = (await store.getJob(id))!;
    assert.equal(rec.status, 'cancelled');
    assert.deepEqual(lifecycleOf(rec), { value: 'cancelled', attempt: 1, maxAttempts: 2 });
  });

  test('a pipeline the reaper fails past its lease budget shows failed in its lifecycle', async (store) => {
    const id = await enqueueOne(store, { maxAttempts: 2 });
    const [c] = await claim(store, { leaseMs: 30 });
    await store.commit('default', [
      { kind: 'checkpoint', id, token: c!.token, status: 'working', snapshot: CHECKPOINT_TEXT, log: [] },
    ]);
    await sleep(60);
    assert.deepEqual(await store.reap('default', { maxLeaseRequeues: 0, lockMs: 1 }), {
      requeued: [],
      failed: [id],
    });
    const rec = (await store.getJob(id))!;
    assert.deepEqual([rec.status, rec.error?.code], ['failed', 'LEASE_EXPIRED']);
    assert.deepEqual(lifecycleOf(rec), { value: 'failed', attempt: 1, maxAttempts: 2 });
    assert.equal(
      (rec.context as { error?: unknown } | null)?.error,
      undefined,
      "a pipeline's context is its machine's",
    );
  });

  test('a redriven pipeline shows queued with a fresh first attempt, not the lifecycle it resumes from', async (store) => {
    const id = await enqueueOne(store, { maxAttempts: 2 });
    const [c] = await claim(store);
    const error = JSON.stringify({ name: 'Error', message: 'no' });
    await store.commit('default', [
      {
        kind: 'fail',
        id,
        token: c!.token,
        error,
        snapshot: CHECKPOINT_TEXT,
        resume: CHECKPOINT_TEXT,
        log: [],
      },
    ]);
    assert.deepEqual(lifecycleOf((await store.getJob(id))!), { value: 'failed', attempt: 1, maxAttempts: 2 });
    await store.retryDeadLetter(id, 'default');
    const rec = (await store.getJob(id))!;
    assert.equal(rec.status, 'queued');
    assert.deepEqual(lifecycleOf(rec), { value: 'queued', attempt: 1, maxAttempts: 2 });
    const [again] = await claim(store);
    const resumed = JSON.parse(again!.snapshot!) as Record<string, unknown>;
    assert.deepEqual(Object.keys(resumed), ['w', 't'], 'the runtime stores no lifecycle of its own');
  });

  test('a record stored with a lifecycle (`l`, the form before it was derived) is read by its fields', async (store) => {
    const id = await enqueueOne(store, { maxAttempts: 3 });
    const [c] = await claim(store);
    const old =
      '{"l":{"value":"working","context":{"attempt":1,"maxAttempts":3}},"w":{"status":"active","value":"a","context":{"n":1}},"t":[]}';
    await store.commit('default', [
      { kind: 'checkpoint', id, token: c!.token, status: 'working', snapshot: old, log: [] },
    ]);
    await store.commit('default', [
      {
        kind: 'retry',
        id,
        token: c!.token,
        error: '{"name":"Error","message":"x"}',
        delayMs: 60_000,
        attempt: 2,
        log: [],
      },
    ]);
    const rec = (await store.getJob(id))!;
    assert.equal(rec.status, 'queued');
    assert.deepEqual(lifecycleOf(rec), { value: 'queued', attempt: 2, maxAttempts: 3 });
    assert.deepEqual(rec.context, { n: 1 }, "the machine's context is the record's context");
  });
}
