// The example of docs/testing.md: a user's tests of their own jobs with createTestHarness, no
// Redis, and the clock moved past a backoff and a 24-hour durable timer in milliseconds.

import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { createTestHarness, type TestHarness } from '../../src/testing/index.js';
import { DAY_MS, approvalPipeline } from '../../machines/approval.js';

describe('testing jobs with createTestHarness', () => {
  let h: TestHarness<any> | undefined;
  afterEach(async () => h?.close());

  it('moves the clock past a retry’s backoff', async () => {
    let calls = 0;
    const charge = defineJob({
      name: 'charge',
      retry: { maxAttempts: 3, backoff: { type: 'fixed', delayMs: 60_000 } },
      work: async ({ input }: { input: { amount: number } }) => {
        if (++calls === 1) throw new Error('gateway timeout');
        return { charged: input.amount };
      },
    });
    const t = (h = await createTestHarness({ jobs: [charge] }));
    const id = await t.client.enqueue('charge', { amount: 42 });

    const waiting = await t.job(id); // runs until idle: the first attempt failed
    assert.equal(waiting.status, 'queued');
    assert.equal(waiting.attempts, 2);

    await t.advance(60_000); // past the backoff: the second attempt runs
    const done = await t.job(id);
    assert.equal(done.status, 'done');
    assert.deepEqual(done.output, { charged: 42 });
    assert.equal(calls, 2);
  });

  it('moves the clock past a pipeline’s 24-hour deadline (a durable `after` timer)', async () => {
    const approval = approvalPipeline({ notifyReviewer: async () => {}, publish: async () => 'unused' });
    const t = (h = await createTestHarness({ jobs: [approval] }));
    const id = await t.client.enqueue('approval', { documentId: 'doc-7' });

    assert.equal((await t.job(id)).status, 'waiting'); // parked: no slot, no timer in memory
    await t.advance(DAY_MS - 60_000);
    assert.equal((await t.job(id)).status, 'waiting', 'a minute before the deadline it still waits');

    await t.advance(60_000);
    const expired = await t.job(id);
    assert.equal(expired.status, 'done');
    assert.deepEqual(expired.output, { outcome: 'expired', by: null });
    assert.deepEqual(await t.path(id), ['requesting', 'awaitingDecision', 'awaitingDecision', 'expired']);
  });

  it('sends an event to a parked pipeline and checks the path it took', async () => {
    const published: string[] = [];
    const approval = approvalPipeline({
      notifyReviewer: async () => {},
      publish: async (doc) => {
        published.push(doc);
        return `https://docs.example/${doc}`;
      },
    });
    const t = (h = await createTestHarness({ jobs: [approval] }));
    const id = await t.client.enqueue('approval', { documentId: 'doc-8' });
    await t.runUntilIdle();

    await t.client.send(id, { type: 'APPROVE', by: 'ana' });
    const job = await t.job(id);
    assert.equal(job.status, 'done');
    assert.deepEqual(job.output, { outcome: 'published', by: 'ana', url: 'https://docs.example/doc-8' });
    assert.deepEqual(published, ['doc-8']);
    assert.deepEqual(await t.path(id), [
      'requesting',
      'awaitingDecision',
      'awaitingDecision',
      'publishing',
      'published',
    ]);
  });
});
