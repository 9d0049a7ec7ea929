import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from 'xstate';
import { Client, RedisStore, Supervisor, defineJob, definePipeline, fanOut } from '../../src/index.js';
import type { AnyDefinition } from '../../src/runtime/registry.js';
import { countChunk, splitMerge } from '../../machines/splitMerge.js';
import { eventually, startRedis, uniquePrefix, type TestRedis } from '../support/redis.js';

const fast = { leaseMs: 1000, heartbeatMs: 250, reaperIntervalMs: 200 };
const words = (n: number, poisonAt = -1) =>
  Array.from({ length: n }, (_, i) => (i === poisonAt ? 'POISON' : `w${i % 7}`)).join(' ');

describe('fan-out and fan-in', () => {
  let redis: TestRedis;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());

  async function harness(jobs: AnyDefinition[], options: { concurrency?: number; queues?: string[] } = {}) {
    const store = new RedisStore({ url: redis.url, prefix: uniquePrefix('fan') });
    const sups = (options.queues ?? ['default']).map(
      (queue) => new Supervisor({ store, jobs, queue, concurrency: options.concurrency ?? 4, ...fast }),
    );
    for (const s of sups) await s.start();
    const client = new Client({ store, jobs });
    return {
      store,
      sups,
      client,
      close: async () => {
        for (const s of sups) await s.stop({ graceMs: 500 });
        client.close();
        await store.close();
      },
    };
  }

  it('fans out children, parks the parent while they run, and merges their outputs in input order', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = defineJob({
      name: 'slowEcho',
      work: async ({ input }: { input: number }) => (await gate, input * 10),
    });
    const machine = setup({ actors: { fanOut } }).createMachine({
      initial: 'fan',
      context: { out: [] as unknown[] },
      states: {
        fan: {
          invoke: {
            id: 'kids',
            src: 'fanOut',
            input: () => ({ jobs: [3, 1, 2].map((n) => ({ machine: 'slowEcho', input: n })) }),
            onDone: { target: 'end', actions: ({ context, event }) => void (context.out = event.output) },
          },
        },
        end: { type: 'final' },
      },
      output: ({ context }) => context.out,
    });
    const t = await harness([slow, definePipeline({ name: 'parent', machine })]);
    const id = await t.client.enqueue('parent', {});
    await eventually(async () => (await t.client.get(id))?.status === 'waiting');
    const parked = await t.client.get(id);
    assert.equal(parked!.children!.total, 3);
    assert.deepEqual(parked!.children!.jobs.map((j) => j.id).sort(), [
      `${id}.kids.0`,
      `${id}.kids.1`,
      `${id}.kids.2`,
    ]);
    const child = await t.client.get(`${id}.kids.0`);
    assert.equal(child!.parentId, id);
    release();
    const done = await t.client.waitForResult(id, { timeoutMs: 5000 });
    assert.deepEqual(done.output, [30, 10, 20]);
    assert.deepEqual(done.progress, { children: { done: 3, total: 3 } });
    await t.close();
  });

  it('runs the splitMerge example on another queue and pages its children with list({ parentId })', async () => {
    const t = await harness([splitMerge, countChunk], { queues: ['default', 'chunks'] });
    const id = await t.client.enqueue('splitMerge', {
      text: words(1000),
      chunkWords: 40,
      chunkQueue: 'chunks',
    });
    const done = await t.client.waitForResult(id, { timeoutMs: 10_000 });
    assert.equal(done.status, 'done');
    assert.equal((done.output as { words: number }).words, 1000);
    assert.equal((done.output as { chunks: number }).chunks, 25);
    const page1 = await t.client.list({ queue: 'chunks', parentId: id, limit: 10 });
    assert.equal(page1.jobs.length, 10);
    assert.ok(page1.cursor);
    const page2 = await t.client.list({ queue: 'chunks', parentId: id, limit: 100, cursor: page1.cursor });
    assert.equal(page1.jobs.length + page2.jobs.length, 25);
    assert.ok(page2.jobs.every((j) => j.status === 'done' && j.parentId === id));
    await t.close();
  });

  it('failFast: the first failed child fails the step and its unfinished siblings are cancelled', async () => {
    const t = await harness(
      [splitMerge, countChunk, defineJob({ name: 'never', work: () => new Promise(() => {}) })],
      { concurrency: 2 },
    );
    const id = await t.client.enqueue('splitMerge', { text: words(30, 15), chunkWords: 5 });
    const done = await t.client.waitForResult(id, { timeoutMs: 5000 });
    assert.equal(done.status, 'done');
    assert.equal(done.state, 'failed');
    const statuses = await Promise.all(
      [0, 1, 2, 3, 4, 5].map(async (i) => (await t.client.get(`${id}.chunks.${i}`))!.status),
    );
    assert.equal(statuses[3], 'failed');
    assert.ok(
      statuses.every((s) => s === 'done' || s === 'failed' || s === 'cancelled'),
      statuses.join(','),
    );
    await t.close();
  });

  it('collect: the step gets every outcome, successes and failures, in input order', async () => {
    const t = await harness([splitMerge, countChunk]);
    const id = await t.client.enqueue('splitMerge', { text: words(15, 7), chunkWords: 5, policy: 'collect' });
    const done = await t.client.waitForResult(id, { timeoutMs: 5000 });
    const results = (
      done.output as { results: { id: string; status: string; error?: { message: string } }[] }
    ).results;
    assert.deepEqual(
      results.map((r) => r.status),
      ['done', 'failed', 'done'],
    );
    assert.equal(results[1]!.id, `${id}.chunks.1`);
    assert.equal(results[1]!.error!.message, 'poisoned chunk');
    assert.equal((done.output as { words: number }).words, 10);
    await t.close();
  });

  it('reports a child cancelled on its own to the parent as a failure of that child', async () => {
    const hang = defineJob({
      name: 'hang',
      work: ({ signal }) =>
        new Promise((_, rej) => signal.addEventListener('abort', () => rej(new Error('aborted')))),
    });
    const machine = setup({ actors: { fanOut } }).createMachine({
      initial: 'fan',
      states: {
        fan: {
          invoke: {
            id: 'k',
            src: 'fanOut',
            input: () => ({ jobs: [{ machine: 'hang' }] }),
            onDone: 'ok',
            onError: 'childFailed',
          },
        },
        ok: { type: 'final' },
        childFailed: { type: 'final' },
      },
    });
    const t = await harness([hang, definePipeline({ name: 'p1', machine })]);
    const id = await t.client.enqueue('p1', {});
    await eventually(async () => (await t.client.get(`${id}.k.0`))?.status === 'working');
    assert.equal(await t.client.cancel(`${id}.k.0`), true);
    const done = await t.client.waitForResult(id, { timeoutMs: 5000 });
    assert.equal(done.state, 'childFailed');
    assert.equal((await t.client.get(`${id}.k.0`))!.status, 'cancelled');
    await t.close();
  });

  it('cancels a whole subtree three levels deep: parked and queued descendants without running, running ones through their signal', async () => {
    let grandchildAborted = false;
    let leafRuns = 0;
    const leaf = defineJob({
      name: 'leaf',
      work: ({ signal }) =>
        new Promise(
          (_, reject) =>
            ++leafRuns &&
            signal.addEventListener('abort', () => {
              grandchildAborted = true;
              reject(new Error('stopped'));
            }),
        ),
    });
    const mid = definePipeline({
      name: 'mid',
      machine: setup({ actors: { fanOut } }).createMachine({
        initial: 'fan',
        states: {
          fan: {
            invoke: {
              id: 'leaves',
              src: 'fanOut',
              input: () => ({ jobs: [{ machine: 'leaf' }, { machine: 'leaf' }] }),
            },
          },
        },
      }),
    });
    const top = definePipeline({
      name: 'top',
      machine: setup({ actors: { fanOut } }).createMachine({
        initial: 'fan',
        states: {
          fan: {
            invoke: {
              id: 'mids',
              src: 'fanOut',
              input: () => ({ jobs: [{ machine: 'mid' }, { machine: 'mid' }] }),
            },
          },
        },
      }),
    });
    // Concurrency 2: two leaves run, the other two stay queued.
    const t = await harness([leaf, mid, top], { concurrency: 2 });
    const id = await t.client.enqueue('top', {});
    await eventually(async () => {
      const r = await t.client.list({ status: 'working' });
      return r.jobs.filter((j) => j.machine === 'leaf').length === 2;
    });
    await t.client.cancel(id);
    const all = [
      id,
      `${id}.mids.0`,
      `${id}.mids.1`,
      ...[0, 1].flatMap((m) => [0, 1].map((l) => `${id}.mids.${m}.leaves.${l}`)),
    ];
    await eventually(async () => {
      const recs = await Promise.all(all.map((j) => t.client.get(j)));
      return recs.every((r) => r?.status === 'cancelled');
    }, 5000);
    assert.ok(grandchildAborted);
    // The two queued leaves ended cancelled without their work running (even if a worker
    // claimed one after a slot freed up: it saw its parent cancelled first).
    assert.equal(leafRuns, 2);
    await t.close();
  });

  it('completes one parent with 10,000 children; fan-in costs O(1) calls per child', async () => {
    const t = await harness([splitMerge, countChunk], { concurrency: 100 });
    const id = await t.client.enqueue('splitMerge', { text: words(10_000), chunkWords: 1 });
    const done = await t.client.waitForResult(id, { timeoutMs: 60_000 });
    assert.equal(done.status, 'done');
    assert.equal((done.output as { chunks: number }).chunks, 10_000);
    assert.equal((done.output as { words: number }).words, 10_000);
    const parent = await t.client.get(id);
    assert.equal(parent!.children!.total, 10_000);
    assert.equal(parent!.children!.finished, 10_000);
    await t.close();
  });
});
