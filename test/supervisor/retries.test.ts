import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { NonRetryableError, RetryLaterError, defineJob } from '../../src/index.js';
import { eventually } from '../support/redis.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';

class FlakyError extends Error {
  readonly code = 'E_FLAKY';
  constructor(message: string) {
    super(message);
    this.name = 'FlakyError';
  }
}

describeOnEachStore('retries', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  it('retries with exponential backoff, 4 attempts by default, then fails with a dead letter and unblocks waiters', async () => {
    h = world();
    const runs: { attempt: number; at: number }[] = [];
    const job = defineJob({
      name: 'flaky',
      retry: { backoff: { type: 'exponential', delayMs: 50 } },
      work: ({ attempt }) => {
        runs.push({ attempt, at: Date.now() });
        throw new FlakyError(`boom ${attempt}`);
      },
    });
    const client = h.client({ jobs: [job] });
    await h.started({ jobs: [job] });
    const id = await client.enqueue('flaky', { x: 1 });
    const rec = await client.waitForResult(id, { timeoutMs: 8000 });
    const unblockedAt = Date.now();

    assert.deepEqual(
      runs.map((r) => r.attempt),
      [1, 2, 3, 4],
    );
    // Delays are base * 2^attempt: 100, 200, 400 ms, each measured on the store's clock.
    const gaps = runs.slice(1).map((r, i) => r.at - runs[i]!.at);
    [100, 200, 400].forEach((d, i) =>
      assert.ok(gaps[i]! >= d - 15, `gap ${i + 1} was ${gaps[i]} ms, want >= ${d}`),
    );
    assert.ok(unblockedAt - runs[3]!.at < 1500, 'the waiter learned of the failure at once');

    assert.equal(rec.status, 'failed');
    assert.equal(rec.attempts, 4);
    assert.equal(rec.maxAttempts, 4);
    assert.equal(rec.error?.name, 'FlakyError');
    assert.equal(rec.error?.message, 'boom 4');
    assert.equal(rec.error?.code, 'E_FLAKY');

    const log = await client.events(id);
    const scheduled = log.filter((e) => e.type === 'retry-scheduled');
    assert.deepEqual(
      scheduled.map((e) => e.delayMs),
      [100, 200, 400],
    );
    assert.deepEqual(
      scheduled.map((e) => e.attempt),
      [2, 3, 4],
    );
    assert.equal(log.at(-1)?.type, 'failed');

    const dead = await client.deadLetters();
    assert.equal(dead.length, 1);
    const d = dead[0]!;
    assert.equal(d.id, id);
    assert.equal(d.machine, 'flaky');
    assert.deepEqual(d.input, { x: 1 });
    assert.equal(d.attempts, 4);
    assert.equal(d.error?.message, 'boom 4');
    assert.ok(d.failedAt > 0);
  });

  it('waits out a backoff in the store: status queued, runAt in the future, default delay 2^attempt s', async () => {
    h = world();
    let runs = 0;
    const job = defineJob({
      name: 'slowRetry',
      work: () => {
        runs++;
        throw new Error('nope');
      },
    });
    const client = h.client({ jobs: [job] });
    await h.started({ jobs: [job] });
    const id = await client.enqueue('slowRetry', null);
    const rec = (await eventually(async () => {
      const r = await client.get(id);
      return r?.attempts === 2 ? r : null;
    }))!;
    assert.equal(rec.status, 'queued');
    assert.equal(rec.maxAttempts, 4, 'default maxAttempts is 4');
    assert.ok(rec.runAt !== null && rec.runAt > Date.now() + 1000, `runAt ${rec.runAt} should be ~2 s ahead`);
    assert.equal(rec.error?.message, 'nope', 'the record keeps the error that caused the retry');
    assert.notEqual(await h.indexScore('delayed', id), null);
    const entry = (await client.events(id)).find((e) => e.type === 'retry-scheduled');
    assert.equal(entry?.delayMs, 2000);
    assert.equal(runs, 1);
  });

  it('runs a backoff retry when due even while the supervisor sits in a long idle wait', async () => {
    h = world();
    const runs: number[] = [];
    const job = defineJob({
      name: 'lateThrow',
      retry: { maxAttempts: 2, backoff: { type: 'fixed', delayMs: 20 } },
      work: async () => {
        runs.push(Date.now());
        // Long enough for the supervisor to start its idle wait (5 s) while this job runs.
        await new Promise((r) => setTimeout(r, 150));
        if (runs.length === 1) throw new Error('first');
        return 'ok';
      },
    });
    const client = h.client({ jobs: [job] });
    await h.started({ jobs: [job], idleWaitMs: 5000 });
    const id = await client.enqueue('lateThrow', null);
    const rec = await client.waitForResult(id, { timeoutMs: 8000 });
    assert.equal(rec.status, 'done');
    assert.equal(runs.length, 2);
    const gap = runs[1]! - runs[0]!;
    assert.ok(gap < 1500, `retry due 20 ms after the failure ran ${gap - 150} ms after it`);
  });

  it('honours maxAttempts given at enqueue', async () => {
    h = world();
    let runs = 0;
    const job = defineJob({
      name: 'twice',
      retry: { backoff: { type: 'fixed', delayMs: 10 } },
      work: () => {
        runs++;
        throw new Error('x');
      },
    });
    const client = h.client({ jobs: [job] });
    await h.started({ jobs: [job] });
    const id = await client.enqueue('twice', null, { maxAttempts: 2 });
    const rec = await client.waitForResult(id, { timeoutMs: 5000 });
    assert.equal(rec.status, 'failed');
    assert.equal(runs, 2);
  });

  it("takes the definition's maxAttempts when the client knows machines only from the registry", async () => {
    h = world();
    let runs = 0;
    const job = defineJob({
      name: 'twiceOnly',
      retry: { maxAttempts: 2, backoff: { type: 'fixed', delayMs: 10 } },
      work: () => {
        runs++;
        throw new Error('x');
      },
    });
    await h.started({ jobs: [job] });
    const client = h.client(); // no definitions: names come from what supervisors publish
    const id = await client.enqueue('twiceOnly', null);
    const rec = await client.waitForResult(id, { timeoutMs: 5000 });
    assert.equal(rec.status, 'failed');
    assert.equal(rec.maxAttempts, 2);
    assert.equal(runs, 2);
  });

  it('fails at the first NonRetryableError whatever attempts remain', async () => {
    h = world();
    let runs = 0;
    const job = defineJob({
      name: 'fatal',
      retry: { maxAttempts: 5, backoff: { type: 'fixed', delayMs: 10 } },
      work: () => {
        runs++;
        throw new NonRetryableError('bad data', { code: 'BAD_DATA' });
      },
    });
    const client = h.client({ jobs: [job] });
    await h.started({ jobs: [job] });
    const id = await client.enqueue('fatal', null);
    const rec = await client.waitForResult(id, { timeoutMs: 5000 });
    assert.equal(rec.status, 'failed');
    assert.equal(runs, 1);
    assert.equal(rec.attempts, 1);
    assert.deepEqual(
      { name: rec.error?.name, code: rec.error?.code, message: rec.error?.message },
      {
        name: 'NonRetryableError',
        code: 'BAD_DATA',
        message: 'bad data',
      },
    );
    assert.deepEqual(
      (await client.deadLetters()).map((d) => d.id),
      [id],
    );
  });

  it('requeues on RetryLaterError without using an attempt', async () => {
    h = world();
    const attempts: number[] = [];
    const job = defineJob({
      name: 'ratelimited',
      retry: { maxAttempts: 1 },
      work: ({ attempt }) => {
        attempts.push(attempt);
        if (attempts.length < 3) throw new RetryLaterError(50);
        return 'finally';
      },
    });
    const client = h.client({ jobs: [job] });
    await h.started({ jobs: [job] });
    const id = await client.enqueue('ratelimited', null);
    const rec = await client.waitForResult(id, { timeoutMs: 5000 });
    // With maxAttempts 1, a counted retry would have failed the job after the first throw.
    assert.equal(rec.status, 'done');
    assert.equal(rec.output, 'finally');
    assert.deepEqual(attempts, [1, 1, 1]);
    assert.equal(rec.attempts, 1);
    const log = await client.events(id);
    assert.equal(log.filter((e) => e.type === 'retry-later').length, 2);
  });
});
