// How attempts end besides success, for any backend under the real runtime: the error a done job
// keeps (none), and retry-laters that grow and are bounded (`retry.retryLater`). What the store
// keeps (the error field, the count of retry-laters) must hold on RedisStore and MemoryStore
// alike. stallCases.ts has the attempts that stop reporting progress.

import assert from 'node:assert/strict';
import { RetryLaterError, defineJob } from '../../../src/index.js';
import type { StoreFactory } from './storeFactory.js';
import { runtimeTest } from './runtimeTest.js';

const FAST = { concurrency: 4, leaseMs: 2000, heartbeatMs: 500, reaperIntervalMs: 200 } as const;

export function retryCases(factory: StoreFactory): void {
  const test = runtimeTest(factory, FAST);

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
}
