// How attempts end besides success, for any backend under the real runtime: the error a done job
// keeps (none), retry-laters that grow and are bounded (`retry.retryLater`), and an attempt that
// stops reporting progress (`stallTimeoutMs`). What the store keeps (the error field, the count of
// retry-laters) must hold on RedisStore and MemoryStore alike.

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { Client, RetryLaterError, Supervisor, defineJob } from '../../../src/index.js';
import type { AnyDefinition } from '../../../src/runtime/registry.js';
import type { Store } from '../../../src/store/types.js';
import type { StoreFactory } from './storeFactory.js';

const FAST = { leaseMs: 2000, heartbeatMs: 500, reaperIntervalMs: 200 } as const;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function retryCases(factory: StoreFactory): void {
  /** A fresh store with a running supervisor and a client, stopped at the end whatever happens. */
  const test = (
    name: string,
    jobs: AnyDefinition[],
    fn: (t: { store: Store; client: Client }) => Promise<void>,
  ) =>
    void it(name, async () => {
      const store = await factory.make();
      const sup = new Supervisor({ store, jobs, concurrency: 4, logger: pino({ level: 'silent' }), ...FAST });
      const client = new Client({ store, jobs });
      try {
        await sup.start();
        await fn({ store, client });
      } finally {
        await sup.stop({ graceMs: 0 });
        client.close();
        await store.close();
      }
    });

  const flakyOnce = defineJob({
    name: 'flakyOnce',
    retry: { maxAttempts: 2, backoff: { type: 'fixed', delayMs: 10 } },
    work: async ({ attempt }) => {
      if (attempt === 1) throw Object.assign(new Error('first try failed'), { code: 'E_FIRST' });
      return 'ok';
    },
  });
  test(
    'a job done after a failed attempt keeps no error; its audit log keeps the failed attempt’s',
    [flakyOnce],
    async ({ client }) => {
      const id = await client.enqueue('flakyOnce', {});
      const job = await client.waitForResult(id, { timeoutMs: 8000 });
      assert.deepEqual([job.status, job.attempts], ['done', 2]);
      assert.equal(job.error, null, 'a done job has no error');
      const retried = (await client.events(id)).find((e) => e.type === 'retry-scheduled') as
        { error?: { message?: string; code?: string } } | undefined;
      assert.deepEqual(retried?.error?.message, 'first try failed', 'the history keeps it');
    },
  );

  let growingCalls = 0;
  const growing = defineJob({
    name: 'growing',
    retry: { maxAttempts: 1, retryLater: { growth: 2, maxDelayMs: 100 } },
    work: async () => {
      if (++growingCalls <= 4) throw new RetryLaterError(20);
      return growingCalls;
    },
  });
  test(
    'grows each retry-later’s delay by `growth`, up to `maxDelayMs`, without using attempts',
    [growing],
    async ({ client }) => {
      growingCalls = 0;
      const id = await client.enqueue('growing', {});
      const job = await client.waitForResult(id, { timeoutMs: 8000 });
      assert.deepEqual([job.status, job.output, job.attempts], ['done', 5, 1]);
      const delays = (await client.events(id))
        .filter((e) => e.type === 'retry-later')
        .map((e) => (e as { delayMs?: number }).delayMs);
      assert.deepEqual(delays, [20, 40, 80, 100]);
    },
  );

  let boundedCalls = 0;
  const bounded = defineJob({
    name: 'bounded',
    retry: { maxAttempts: 3, retryLater: { maxRetries: 2 } },
    work: async () => {
      boundedCalls++;
      throw new RetryLaterError(10, 'target unreachable');
    },
  });
  test(
    'fails the job with RETRY_LATER_EXHAUSTED once it asked to retry later more than `maxRetries` times',
    [bounded],
    async ({ client }) => {
      boundedCalls = 0;
      const id = await client.enqueue('bounded', {});
      const job = await client.waitForResult(id, { timeoutMs: 8000 });
      assert.deepEqual([job.status, job.attempts, boundedCalls], ['failed', 1, 3]);
      assert.equal(job.error?.code, 'RETRY_LATER_EXHAUSTED');
      assert.match(job.error?.message ?? '', /asked to retry later 3 times \(at most 2\)/);
      assert.ok(
        (await client.deadLetters()).some((d) => d.id === id),
        'dead-lettered',
      );
      // A redrive starts the count over: two more retry-laters, then it fails again.
      await client.retryDeadLetter(id);
      const again = await client.waitForResult(id, { timeoutMs: 8000 });
      assert.deepEqual(
        [again.status, again.error?.code, boundedCalls],
        ['failed', 'RETRY_LATER_EXHAUSTED', 6],
      );
    },
  );

  const reporting = defineJob({
    name: 'reporting',
    stallTimeoutMs: 200,
    timeoutMs: 30_000,
    work: async ({ progress }) => {
      // Runs three times as long as the stall timeout, reporting every 50 ms.
      for (let i = 1; i <= 12; i++) {
        await sleep(50);
        progress({ step: i });
      }
      return 'finished';
    },
  });
  test(
    'a job that keeps reporting progress runs past `stallTimeoutMs` to done',
    [reporting],
    async ({ client }) => {
      const id = await client.enqueue('reporting', {});
      const job = await client.waitForResult(id, { timeoutMs: 8000 });
      assert.deepEqual([job.status, job.output, job.attempts], ['done', 'finished', 1]);
    },
  );

  const stalling = defineJob({
    name: 'stalling',
    stallTimeoutMs: 200,
    timeoutMs: 30_000,
    retry: { maxAttempts: 1 },
    work: async ({ progress, signal }) => {
      progress({ step: 1 });
      await sleep(50);
      progress({ step: 2 });
      // Then nothing more is reported: it waits until its signal fires.
      await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    },
  });
  test(
    'an attempt that reports no progress for `stallTimeoutMs` fails with STALLED',
    [stalling],
    async ({ client }) => {
      const id = await client.enqueue('stalling', {});
      const job = await client.waitForResult(id, { timeoutMs: 8000 });
      assert.equal(job.status, 'failed');
      assert.equal(job.error?.code, 'STALLED');
      assert.match(job.error?.message ?? '', /reported no progress for 200 ms/);
      assert.deepEqual(job.progress, { step: 2 });
    },
  );
}
