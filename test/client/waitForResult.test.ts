import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { JobNotFoundError, defineJob } from '../../src/index.js';
import { JOB_FIELDS } from '../../src/store/decodeJob.js';
import { loadScripts } from '../../src/store/redis/scripts.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { Harness, gate } from '../support/harness.js';
import { countingStore as counting } from '../support/countingStore.js';

describe('waitForResult', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  const echo = defineJob({ name: 'echo', work: async ({ input }: { input: { n: number } }) => input.n });

  /** A job that returns `output` once `release` is opened. */
  function heldJob(name: string, output: string) {
    const release = gate();
    const job = defineJob({
      name,
      work: async () => {
        await release.promise;
        return output;
      },
    });
    return { job, release };
  }

  it('with the queue given, makes one read per wait (the watch) and none at the finish, whose record the reader receives', async () => {
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
      // Held until the wait has surely watched the job, so the record comes by the push.
      setTimeout(() => release.open(), 200);
      const rec = await waiting;
      assert.equal(rec.status, 'done');
      assert.equal(rec.output, n);
    }
    assert.equal(calls.get('watchJob'), 5, 'one read per wait, before blocking');
    assert.equal(calls.get('getJob') ?? 0, 0, 'no read at the finish');
    assert.equal(calls.get('readResults:some'), 5, 'each finish delivered by one wake-up, with its record');
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
    const { job: slow, release } = heldJob('slow', 'ok');
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

  it('settles hundreds of concurrent waits, each with the output of its own job, one read each', async () => {
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
    assert.equal(calls.get('watchJob'), 300, 'one read per wait');
    assert.equal(calls.get('getJob') ?? 0, 0, 'no read at the finish');
  });
  it('a job ended outside a worker (cancelled while queued) reaches its waiter at once, not at the slow re-check', async () => {
    h = new Harness(redis);
    const { store, calls } = counting(h.newStore());
    const client = h.client({ store, jobs: [echo] });
    const id = await client.enqueue('echo', { n: 1 }); // no supervisor: it stays queued
    const waiting = client.waitForResult(id, { queue: 'default', timeoutMs: 10_000 });
    await new Promise((r) => setTimeout(r, 100));
    const t0 = Date.now();
    await client.cancel(id, { queue: 'default' });
    const rec = await waiting;
    assert.equal(rec.status, 'cancelled');
    assert.ok(Date.now() - t0 < 2000, `settled ${Date.now() - t0} ms after the cancel (re-check is 5 s)`);
    assert.equal(calls.get('readResults:some'), 1, 'the cancel pushed the record');
  });

  it('a failed job reaches its waiter with its error, and two clients waiting on one job both get it', async () => {
    h = new Harness(redis);
    const boom = defineJob({
      name: 'boom',
      work: async () => {
        await new Promise((r) => setTimeout(r, 200));
        throw new Error('kaput');
      },
      retry: { maxAttempts: 1 },
    });
    const a = counting(h.newStore());
    const b = counting(h.newStore());
    const ca = h.client({ store: a.store, jobs: [boom] });
    const cb = h.client({ store: b.store, jobs: [boom] });
    const id = await ca.enqueue('boom', {});
    const waits = [ca, cb].map((c) => c.waitForResult(id, { queue: 'default', timeoutMs: 10_000 }));
    await h.started({ jobs: [boom] });
    const recs = await Promise.all(waits);
    for (const rec of recs) {
      assert.equal(rec.status, 'failed');
      assert.match(JSON.stringify(rec.error), /kaput/);
    }
    for (const { calls } of [a, b]) {
      assert.equal(calls.get('watchJob'), 1);
      assert.equal(calls.get('getJob') ?? 0, 0, 'no read at the finish');
    }
    assert.equal(await h.raw.hexists(h.key(`job:${id}`), 'wt'), 0, 'the finish cleared the watch mark');
  });

  it('a wait that gave up takes itself off the job; a watcher that vanished gets a record that expires', async () => {
    h = new Harness(redis);
    const { job: held, release } = heldJob('held', 'late');
    await h.started({ jobs: [held, echo] });
    const quitter = h.client({ jobs: [held, echo] });
    const late = await quitter.enqueue('held', {});
    await assert.rejects(() => quitter.waitForResult(late, { queue: 'default', timeoutMs: 300 }), {
      code: 'TIMEOUT',
    });
    // The wait that gave up is no longer listed as a watcher of the job.
    await eventually(async () => (await h.raw.hget(h.key(`job:${late}`), 'wt')) === null);
    quitter.close();
    // A watcher that vanished without giving up (its process died): marked, never read.
    await h.store.watchJob(late, 'default', 'vanished');
    release.open();
    const resultKeys = (await eventually(async () => {
      const ks = (await h.keys()).filter((k) => k.includes('result:'));
      return ks.length > 0 ? ks : null;
    }))!;
    assert.deepEqual(
      resultKeys,
      [h.key('result:vanished')],
      'the finish pushed to the vanished watcher only',
    );
    const ttl = await h.raw.pttl(resultKeys[0]!);
    assert.ok(ttl > 0 && ttl <= 60_000, `result list TTL ${ttl} ms`);
    const client = h.client({ jobs: [held, echo] });
    const id = await client.enqueue('echo', { n: 5 });
    assert.equal((await client.waitForResult(id, { queue: 'default', timeoutMs: 5000 })).output, 5);
  });

  it("the scripts' record fields are decodeJob's, in the same order", () => {
    const lua = loadScripts().find((x) => x.name === 'watch')!.lua;
    const m = /local JOB_FIELDS = \{([^}]*)\}/.exec(lua);
    assert.ok(m, 'watch-1 is sent with JOB_FIELDS');
    const fields = [...m[1]!.matchAll(/'([^']+)'/g)].map((x) => x[1]);
    assert.deepEqual(fields, [...JOB_FIELDS]);
  });
});
