import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.js';
import { untilAborted } from '../support/harness.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';

describeOnEachStore('timeout', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  it('fires the AbortSignal when an attempt runs past timeoutMs and fails the attempt as TIMEOUT', async () => {
    h = world();
    const reasons: unknown[] = [];
    let startedAt = 0;
    let abortedAt = 0;
    const job = defineJob({
      name: 'hang',
      timeoutMs: 200,
      retry: { maxAttempts: 1 },
      work: async ({ signal }) => {
        startedAt = Date.now();
        signal.addEventListener('abort', () => {
          abortedAt = Date.now();
          reasons.push((signal.reason as { reason?: string }).reason);
        });
        return untilAborted(signal);
      },
    });
    const client = h.client({ jobs: [job] });
    await h.started({ jobs: [job] });
    const id = await client.enqueue('hang', null);
    const rec = await client.waitForResult(id, { timeoutMs: 5000 });
    assert.deepEqual(reasons, ['timeout']);
    assert.ok(abortedAt - startedAt >= 190, `aborted after ${abortedAt - startedAt} ms`);
    assert.equal(rec.status, 'failed');
    assert.equal(rec.error?.code, 'TIMEOUT');
    assert.equal(rec.error?.name, 'TimeoutError');
  });

  it('retries a timed-out attempt while attempts remain, and takes a per-job timeoutMs from enqueue', async () => {
    h = world();
    const attempts: number[] = [];
    const job = defineJob({
      name: 'slowFirst',
      timeoutMs: 60_000,
      retry: { maxAttempts: 2, backoff: { type: 'fixed', delayMs: 10 } },
      work: async ({ attempt, signal }) => {
        attempts.push(attempt);
        if (attempt === 1) return untilAborted(signal);
        return 'second';
      },
    });
    const client = h.client({ jobs: [job] });
    await h.started({ jobs: [job] });
    const id = await client.enqueue('slowFirst', null, { timeoutMs: 150 });
    const rec = await client.waitForResult(id, { timeoutMs: 5000 });
    assert.equal(rec.status, 'done');
    assert.deepEqual(attempts, [1, 2]);
    const retry = (await client.events(id)).find((e) => e.type === 'retry-scheduled') as
      { error?: { code?: string } } | undefined;
    assert.equal(retry?.error?.code, 'TIMEOUT');
  });
});
