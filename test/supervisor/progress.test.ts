import { afterEach, it } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from 'xstate';
import { defineJob, definePipeline, step } from '../../src/index.js';
import type { AnyDefinition } from '../../src/runtime/registry.js';
import { eventually } from '../support/redis.js';
import { describeOnEachStore, type AnyStoreWorld } from '../support/eachStore.js';

type Report = (value: unknown) => void;

describeOnEachStore('progress', (world) => {
  let h: AnyStoreWorld;
  afterEach(async () => h.close());

  /** Reports 1/4, waits until it is stored, then 2/4 .. 4/4 inside one coalescing window. */
  async function fourQuarters(id: string, progress: Report): Promise<string> {
    progress({ done: 1, of: 4 });
    await eventually(async () => ((await h.store.getJob(id))?.progress as { done?: number })?.done === 1);
    for (const done of [2, 3, 4]) progress({ done, of: 4 });
    return 'ok';
  }

  async function lastProgress(jobs: AnyDefinition[], machine: string): Promise<void> {
    const client = h.client({ jobs });
    await h.started({ jobs });
    const id = await client.enqueue(machine, null);
    const rec = await client.waitForResult(id, { timeoutMs: 10_000 });
    assert.equal(rec.status, 'done');
    assert.deepEqual(rec.progress, { done: 4, of: 4 }, 'the last report is the stored one');
    const reports = (await client.events(id)).filter((e) => e.type === 'progress');
    assert.deepEqual(reports.at(-1)?.progress, { done: 4, of: 4 }, 'and the last one logged');
  }

  it('stores the last report of a simple job that ends within the coalescing window', async () => {
    h = world();
    const job = defineJob({ name: 'quarters', work: ({ jobId, progress }) => fourQuarters(jobId, progress) });
    await lastProgress([job], 'quarters');
  });

  it('stores the last report of a pipeline step, compiled or on XState', async () => {
    h = world();
    const machine = setup({
      actors: { quarters: step(({ jobId, progress }) => fourQuarters(jobId, progress)) },
    }).createMachine({
      initial: 'a',
      states: { a: { invoke: { id: 'q', src: 'quarters', onDone: 'end' } }, end: { type: 'final' } },
    });
    await lastProgress(
      [definePipeline({ name: 'pq', machine }), definePipeline({ name: 'pqx', machine, compile: false })],
      'pq',
    );
    const client = h.client();
    const id = await client.enqueue('pqx', null);
    const rec = await client.waitForResult(id, { timeoutMs: 10_000 });
    assert.deepEqual(rec.progress, { done: 4, of: 4 });
  });

  it('stores the last report of an attempt that fails', async () => {
    h = world();
    const job = defineJob({
      name: 'failing',
      retry: { maxAttempts: 1 },
      work: async ({ jobId, progress }) => {
        await fourQuarters(jobId, progress);
        throw new Error('after the last report');
      },
    });
    const client = h.client({ jobs: [job] });
    await h.started({ jobs: [job] });
    const id = await client.enqueue('failing', null);
    const rec = await client.waitForResult(id, { timeoutMs: 10_000 });
    assert.equal(rec.status, 'failed');
    assert.deepEqual(rec.progress, { done: 4, of: 4 });
  });
});
