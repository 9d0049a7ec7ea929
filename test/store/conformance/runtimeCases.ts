// The same backends under the real runtime: a Supervisor and a Client on top of the store, for
// the paths a user's jobs take alone: a simple job, a retry with backoff, a pipeline that parks
// and gets an event. runtimeTreeCases.ts has fan-out, cancel, stop and redrive.

import assert from 'node:assert/strict';
import { defineJob } from '../../../src/index.js';
import { approvalPipeline } from '../../../machines/approval.js';
import type { StoreFactory } from './storeFactory.js';
import { eventually, runtimeTest } from './runtimeTest.js';

const FAST = { concurrency: 8, leaseMs: 1000, heartbeatMs: 250, reaperIntervalMs: 200 } as const;

export function runtimeCases(factory: StoreFactory): void {
  const test = runtimeTest(factory, FAST);

  const double = defineJob({
    name: 'double',
    work: async ({ input }: { input: { n: number } }) => input.n * 2,
  });
  test('runs a simple job to its output', [double], async ({ client }) => {
    const id = await client.enqueue('double', { n: 21 });
    const job = await client.waitForResult(id, { timeoutMs: 8000 });
    assert.deepEqual([job.status, job.output, job.attempts], ['done', 42, 1]);
    assert.deepEqual(
      (await client.events(id)).map((e) => e.type),
      ['enqueued', 'claimed', 'done'],
    );
  });

  let flakyRuns = 0;
  const flaky = defineJob({
    name: 'flaky',
    retry: { maxAttempts: 3, backoff: { type: 'fixed', delayMs: 50 } },
    work: async ({ attempt }) => {
      flakyRuns++;
      if (attempt < 3) throw new Error(`attempt ${attempt} failed`);
      return 'third time';
    },
  });
  test(
    'retries a failing job after its backoff, to success on its third attempt',
    [flaky],
    async ({ client }) => {
      flakyRuns = 0;
      const id = await client.enqueue('flaky', {});
      const job = await client.waitForResult(id, { timeoutMs: 8000 });
      assert.deepEqual([job.status, job.output, job.attempts, flakyRuns], ['done', 'third time', 3, 3]);
      const types = (await client.events(id)).map((e) => e.type);
      assert.deepEqual(types.filter((t) => t === 'retry-scheduled').length, 2);
    },
  );

  const published: string[] = [];
  const approval = approvalPipeline({
    notifyReviewer: async () => {},
    publish: async (doc) => {
      published.push(doc);
      return `https://example.test/${doc}`;
    },
  });
  test('parks a pipeline until an event comes, then runs it to the end', [approval], async ({ client }) => {
    const id = await client.enqueue('approval', { documentId: 'doc-1' });
    await eventually(async () => (await client.get(id))?.status === 'waiting');
    await client.send(id, { type: 'APPROVE', by: 'ana' });
    const job = await client.waitForResult(id, { timeoutMs: 8000 });
    assert.equal(job.status, 'done');
    assert.deepEqual(job.output, { outcome: 'published', by: 'ana', url: 'https://example.test/doc-1' });
    assert.deepEqual(published, ['doc-1']);
    const states = (await client.events(id)).filter((e) => e.type === 'state').map((e) => e.state);
    // The woken run logs the state it resumes in again.
    assert.deepEqual(states, [
      'requesting',
      'awaitingDecision',
      'awaitingDecision',
      'publishing',
      'published',
    ]);
  });
}
