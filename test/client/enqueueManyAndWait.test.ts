// Client.enqueueManyAndWait (and its WithInfo form) on both stores: a batch is written with the
// caller's watch on every job, in the one atomic step per queue that makes them, so minimal jobs
// (their records deleted as they end done) that end before the batch's enqueue even answers still
// deliver their results, where enqueueMany then waitForResult on each finds them gone. The race is
// made certain by a store whose enqueue answers only once its jobs are gone (endsBeforeReply).

import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  defineJob,
  JobNotFoundError,
  NonRetryableError,
  TimeoutError,
  ValidationError,
} from '../../src/index.js';
import type { EnqueueResult, NewJob, Store } from '../../src/store/types.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';
import { endsBeforeReply } from '../support/endsBeforeReply.js';
import { ping, releaseHeld } from '../fixtures/minimalPing.js';
import { eventually } from '../support/redis.js';

const full = defineJob({ name: 'full', work: ({ input }: { input: { n: number } }) => input.n });
const boom = defineJob({
  name: 'boom',
  work: (): never => {
    throw new NonRetryableError('no', { code: 'BOOM' });
  },
});
const jobs = [ping, full, boom];

const pings = (ns: number[], options?: { queue?: string }) =>
  ns.map((n) => ({ machine: 'ping', input: { n }, options }));

/**
 * `store` with `enqueue` answering only after it has let the held ping go and that job's record
 * is gone: a batch that keeps the held job (its key) has it end before the enqueue answers.
 */
function releasesHeldBeforeReply(store: Store, held: string): Store {
  return new Proxy(store, {
    get(target, prop) {
      const v = Reflect.get(target, prop, target) as unknown;
      if (prop === 'enqueue')
        return async (queue: string, batch: NewJob[]): Promise<EnqueueResult[]> => {
          const res = await target.enqueue(queue, batch);
          releaseHeld();
          await eventually(async () => (await target.getJob(held, queue)) === null, 10_000);
          return res;
        };
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

describeOnEachStore('enqueueManyAndWait', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  it('has every result of a batch of minimal jobs that ended before the enqueue answered', async () => {
    h = world();
    await h.started({ jobs, concurrency: 8 });
    const client = h.client({ jobs, store: endsBeforeReply(h.store) });
    // Twice: the second batch finds the client's result reader following already (it lingers
    // after the first), so it reads the jobs' ends before the enqueue answers and must keep them.
    for (const base of [0, 10]) {
      const ns = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => base + n);
      const recs = await client.enqueueManyAndWait(pings(ns), { timeoutMs: 10_000 });
      assert.deepEqual(
        recs.map((r) => [r.status, r.output]),
        ns.map((n) => ['done', { pong: n }]),
      );
      for (const r of recs)
        assert.equal(await client.get(r.id), null, 'the record is gone, as a minimal one goes');
    }
    // The old way, enqueueMany then a wait on each, misses every one of them: the jobs ended
    // (and their records went) between the two calls.
    const ids = await client.enqueueMany(pings([20, 21, 22]));
    for (const id of ids)
      await assert.rejects(client.waitForResult(id, { timeoutMs: 10_000 }), JobNotFoundError);
  });

  it('gives each job of many concurrent batches of minimal no-op jobs its result', async () => {
    h = world();
    await h.started({ jobs, concurrency: 8 });
    const client = h.client({ jobs });
    for (let round = 0; round < 5; round++) {
      const batches = await Promise.all(
        [0, 1, 2, 3].map((b) =>
          client.enqueueManyAndWait(pings(Array.from({ length: 20 }, (_, n) => b * 100 + n)), {
            timeoutMs: 10_000,
          }),
        ),
      );
      batches.forEach((recs, b) =>
        assert.deepEqual(
          recs.map((r) => r.output),
          Array.from({ length: 20 }, (_, n) => ({ pong: b * 100 + n })),
        ),
      );
    }
  });

  it('watches each job in the partition that makes it, one write per partition', async () => {
    h = world();
    const client = h.client({ jobs, store: endsBeforeReply(h.store) });
    await client.configureQueue('wide', { partitions: 3 });
    await h.started({ jobs, queue: 'wide' });
    const recs = await client.enqueueManyAndWait(pings([1, 2, 3, 4, 5, 6], { queue: 'wide' }), {
      timeoutMs: 10_000,
    });
    assert.deepEqual(
      recs.map((r) => r.output),
      [1, 2, 3, 4, 5, 6].map((n) => ({ pong: n })),
    );
    assert.ok(recs.every((r) => r.queue.startsWith('wide#')));
    assert.ok(new Set(recs.map((r) => r.queue)).size > 1, 'the batch spans partitions');
  });

  it('answers the jobs keys keep in their places: running, finished, and two items of one key', async () => {
    h = world();
    await h.started({ jobs });
    const client = h.client({ jobs });
    const finished = await client.enqueue(
      'full',
      { n: 5 },
      { dedupe: { key: 'd', mode: 'ttl', ttlMs: 60_000 } },
    );
    await client.waitForResult(finished, { timeoutMs: 10_000 });
    const running = await client.enqueue('ping', { n: 1, hold: true }, { idempotencyKey: 'k1' });
    await eventually(async () => (await client.get(running))?.status === 'working', 5000);
    // The running job ends, and its record goes, before this batch's enqueue answers.
    const racing = h.client({ jobs, store: releasesHeldBeforeReply(h.store, running) });
    const infos = await racing.enqueueManyAndWaitWithInfo(
      [
        { machine: 'ping', input: { n: 2 }, options: { idempotencyKey: 'k1' } },
        { machine: 'full', input: { n: 6 }, options: { dedupe: { key: 'd', mode: 'ttl', ttlMs: 60_000 } } },
        { machine: 'ping', input: { n: 3 } },
        { machine: 'ping', input: { n: 4 }, options: { dedupe: { key: 'e' } } },
        { machine: 'ping', input: { n: 5 }, options: { dedupe: { key: 'e' } } },
      ],
      { timeoutMs: 10_000 },
    );
    assert.deepEqual(
      infos.map((i) => i.deduplicated),
      [true, true, false, false, true],
    );
    assert.equal(infos[0].id, running);
    assert.equal(infos[1].id, finished);
    assert.equal(infos[4].id, infos[3].id, 'one job for the key in one batch');
    const recs = await Promise.all(infos.map((i) => i.result));
    assert.deepEqual(
      recs.map((r) => r.output),
      [{ pong: 1 }, 5, { pong: 3 }, { pong: 4 }, { pong: 4 }],
    );
    // Kept, but gone before this batch: nothing to wait for; the call rejects as enqueueAndWait
    // does, while the info form settles each job apart.
    await assert.rejects(
      client.enqueueManyAndWait(
        [
          { machine: 'ping', input: { n: 7 } },
          { machine: 'ping', input: { n: 8 }, options: { idempotencyKey: 'k1' } },
        ],
        { timeoutMs: 10_000 },
      ),
      JobNotFoundError,
    );
    const apart = await client.enqueueManyAndWaitWithInfo(
      [
        { machine: 'ping', input: { n: 9 } },
        { machine: 'ping', input: { n: 10 }, options: { idempotencyKey: 'k1' } },
      ],
      { timeoutMs: 10_000 },
    );
    assert.deepEqual((await apart[0].result).output, { pong: 9 });
    await assert.rejects(apart[1].result, JobNotFoundError);
  });

  it('ends the waits still open when the call rejects, not at the bound', async () => {
    h = world();
    await h.started({ jobs });
    const unwatched: string[] = [];
    const spied = new Proxy(h.store, {
      get(target, prop) {
        const v = Reflect.get(target, prop, target) as unknown;
        if (prop === 'unwatchJob')
          return (id: string, queue: string, watcher: string) => {
            unwatched.push(id);
            return target.unwatchJob(id, queue, watcher);
          };
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const client = h.client({ jobs, store: spied });
    await client.enqueueAndWait('ping', { n: 1 }, { idempotencyKey: 'g' }, { timeoutMs: 10_000 });
    await assert.rejects(
      client.enqueueManyAndWait(
        [
          { machine: 'full', input: { n: 1 }, options: { delayMs: 60_000 } },
          { machine: 'ping', input: { n: 2 }, options: { idempotencyKey: 'g' } },
        ],
        { timeoutMs: 30_000 },
      ),
      JobNotFoundError,
    );
    const delayed = (await client.list({ queue: 'default' })).jobs.find((j) => j.machine === 'full');
    assert.ok(delayed);
    await eventually(async () => unwatched.includes(delayed.id), 5000);
  });

  it("answers a failed job with its record in its place, the others' outputs beside it", async () => {
    h = world();
    await h.started({ jobs });
    const client = h.client({ jobs });
    const recs = await client.enqueueManyAndWait(
      [{ machine: 'ping', input: { n: 1 } }, { machine: 'boom' }, { machine: 'ping', input: { n: 2 } }],
      { timeoutMs: 10_000 },
    );
    assert.deepEqual(
      recs.map((r) => r.status),
      ['done', 'failed', 'done'],
    );
    assert.equal(recs[1].error?.code, 'BOOM');
    assert.deepEqual(recs[2].output, { pong: 2 });
  });

  it('rejects with one TimeoutError naming every job not finished in time', async () => {
    h = world();
    await h.started({ jobs });
    const client = h.client({ jobs });
    const late = { delayMs: 60_000 };
    const items = [
      { machine: 'ping', input: { n: 1 } },
      { machine: 'full', input: { n: 1 }, options: late },
      { machine: 'ping', input: { n: 2 } },
      { machine: 'full', input: { n: 2 }, options: late },
    ];
    const err = await client.enqueueManyAndWait(items, { timeoutMs: 2000 }).then(
      () => assert.fail('resolved'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof TimeoutError);
    assert.equal(err.code, 'TIMEOUT');
    assert.equal(err.jobIds?.length, 2);
    assert.equal(err.jobId, err.jobIds[0]);
    for (const id of err.jobIds)
      assert.equal((await client.get(id))?.machine, 'full', 'a delayed job, stored');
    // The info form: each late job's result rejects with a TimeoutError naming it alone.
    const infos = await client.enqueueManyAndWaitWithInfo(items, { timeoutMs: 2000 });
    const ends = await Promise.allSettled(infos.map((i) => i.result));
    assert.deepEqual(
      ends.map((e) => e.status),
      ['fulfilled', 'rejected', 'fulfilled', 'rejected'],
    );
    for (const k of [1, 3]) {
      const reason = (ends[k] as PromiseRejectedResult).reason as TimeoutError;
      assert.ok(reason instanceof TimeoutError);
      assert.equal(reason.jobId, infos[k]!.id);
      assert.equal(reason.jobIds, undefined);
    }
  });

  it("ends the wait, not the jobs, on the caller's signal", async () => {
    h = world();
    const client = h.client({ jobs });
    const ac = new AbortController();
    const waiting = client.enqueueManyAndWaitWithInfo(pings([1, 2]), {
      signal: ac.signal,
      timeoutMs: 10_000,
    });
    const infos = await waiting;
    ac.abort(new Error('enough'));
    for (const i of infos) await assert.rejects(i.result, /enough/);
    for (const i of infos) assert.equal((await client.get(i.id))?.status, 'queued');
    const aborted = AbortSignal.abort(new Error('never mind'));
    await assert.rejects(client.enqueueManyAndWait(pings([3]), { signal: aborted }), /never mind/);
    assert.equal((await client.list({ queue: 'default' })).jobs.length, 3, 'stored either way');
  });

  it('refuses a batch with a bad item and writes none of it', async () => {
    h = world();
    const client = h.client({ jobs });
    await assert.rejects(
      client.enqueueManyAndWait([...pings([1]), null as never], { timeoutMs: 1000 }),
      (e: unknown) => e instanceof ValidationError && e.field === 'items[1]',
    );
    await assert.rejects(
      client.enqueueManyAndWait({} as never),
      (e: unknown) => e instanceof ValidationError && /enqueueManyAndWait takes an array/.test(e.message),
    );
    assert.deepEqual(await h.storedKeys(), []);
    assert.deepEqual(await client.enqueueManyAndWait([]), []);
  });
});
