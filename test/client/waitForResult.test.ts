import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { JobNotFoundError, RedisStore, defineJob } from '../../src/index.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { Harness, gate } from '../support/harness.js';

/** A store that counts the calls a client makes while it waits. */
function counting(store: RedisStore): { store: RedisStore; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const proxy = new Proxy(store, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function' || typeof prop !== 'string') return v;
      return (...args: unknown[]) => {
        calls.set(prop, (calls.get(prop) ?? 0) + 1);
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: proxy, calls };
}

describe('waitForResult', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  const echo = defineJob({ name: 'echo', work: async ({ input }: { input: { n: number } }) => input.n });

  it('with the queue given, reads the record once before blocking and once when the job finishes, and back-to-back waits share one event cursor', async () => {
    h = new Harness(redis);
    let release = gate();
    const held = defineJob({
      name: 'held',
      work: async ({ input }: { input: { n: number } }) => {
        await release.promise;
        return input.n;
      },
    });
    await h.started({ jobs: [held] });
    const { store, calls } = counting(h.newStore());
    const client = h.client({ store, jobs: [held] });
    for (let n = 0; n < 5; n++) {
      release = gate();
      const id = await client.enqueue('held', { n });
      const waiting = client.waitForResult(id, { queue: 'default', timeoutMs: 5000 });
      // Held until the wait has surely made its first read, so the finish comes through the stream.
      setTimeout(() => release.open(), 200);
      const rec = await waiting;
      assert.equal(rec.status, 'done');
      assert.equal(rec.output, n);
    }
    assert.equal(calls.get('getJob'), 10, 'two reads per wait: before blocking, and at the finish');
    assert.equal(calls.get('lastEventCursor'), 1, 'the reader kept its cursor between waits');
  });

  it('still sees a finish that happened before the wait began', async () => {
    h = new Harness(redis);
    await h.started({ jobs: [echo] });
    const client = h.client({ jobs: [echo] });
    const id = await client.enqueue('echo', { n: 7 });
    const first = await client.waitForResult(id, { timeoutMs: 5000 });
    // Both paths: with the queue (the waiter's own read) and without (the queue lookup).
    assert.equal((await client.waitForResult(id, { queue: 'default', timeoutMs: 1000 })).output, 7);
    assert.equal((await client.waitForResult(id, { timeoutMs: 1000 })).finishedAt, first.finishedAt);
  });

  it('rejects an unknown job with JOB_NOT_FOUND naming it, with or without its queue', async () => {
    h = new Harness(redis);
    const client = h.client({ jobs: [echo] });
    const missing = '01ARZ3NDEKTSV4RRFFQ69G5FAV';
    await assert.rejects(
      () => client.waitForResult(missing, { queue: 'default', timeoutMs: 2000 }),
      (err: unknown) =>
        err instanceof JobNotFoundError &&
        err.code === 'JOB_NOT_FOUND' &&
        err.jobId === missing &&
        err.queue === 'default',
    );
    await assert.rejects(
      () => client.waitForResult(missing, { timeoutMs: 2000 }),
      (err: unknown) => err instanceof JobNotFoundError && err.jobId === missing,
    );
  });

  it('a wait that begins while the reader lingers after the last one is still settled', async () => {
    h = new Harness(redis);
    const release = gate();
    const slow = defineJob({
      name: 'slow',
      work: async () => {
        await release.promise;
        return 'ok';
      },
    });
    await h.started({ jobs: [echo, slow] });
    const client = h.client({ jobs: [echo, slow] });
    const a = await client.enqueue('echo', { n: 1 });
    await client.waitForResult(a, { queue: 'default', timeoutMs: 5000 });
    // No waiter now: the reader lingers. A job that finishes later must still reach a new wait.
    const b = await client.enqueue('slow', {});
    const waiting = client.waitForResult(b, { queue: 'default', timeoutMs: 8000 });
    await new Promise((r) => setTimeout(r, 300));
    release.open();
    assert.equal((await waiting).output, 'ok');
  });

  it('settles hundreds of concurrent waits, each with the output of its own job, at most two reads each', async () => {
    h = new Harness(redis);
    const { store, calls } = counting(h.newStore());
    const client = h.client({ store, jobs: [echo] });
    const ids = await client.enqueueMany(
      Array.from({ length: 300 }, (_, n) => ({ machine: 'echo', input: { n } })),
    );
    const waits = ids.map((id) => client.waitForResult(id, { queue: 'default', timeoutMs: 15_000 }));
    await h.started({ jobs: [echo], concurrency: 100 });
    const recs = await Promise.all(waits);
    assert.deepEqual(
      recs.map((r) => r.output),
      ids.map((_, n) => n),
    );
    assert.ok((calls.get('getJob') ?? 0) <= 600, `getJob called ${calls.get('getJob')} times for 300 waits`);
  });
});
