// An attempt that stops reporting progress (`stallTimeoutMs`), for any backend under the real
// runtime: one that keeps reporting runs on, one that stops fails with STALLED.

import assert from 'node:assert/strict';
import { defineJob } from '../../../src/index.js';
import type { StoreFactory } from './storeFactory.js';
import { runtimeTest } from './runtimeTest.js';

const FAST = { concurrency: 4, leaseMs: 2000, heartbeatMs: 500, reaperIntervalMs: 200 } as const;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function stallCases(factory: StoreFactory): void {
  const test = runtimeTest(factory, FAST);

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
