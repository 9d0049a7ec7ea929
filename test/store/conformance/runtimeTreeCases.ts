// The same backends under the real runtime, for jobs with children or a second life: a fan-out
// with fan-in, the cancel of a tree, a stop that requeues, a dead letter and its redrive.

import assert from 'node:assert/strict';
import { setup } from 'xstate';
import { defineJob, definePipeline, fanOut } from '../../../src/index.js';
import type { StoreFactory } from './storeFactory.js';
import { eventually, runtimeTest } from './runtimeTest.js';

const FAST = { concurrency: 8, leaseMs: 1000, heartbeatMs: 250, reaperIntervalMs: 200 } as const;

export function runtimeTreeCases(factory: StoreFactory): void {
  const test = runtimeTest(factory, FAST);

  const square = defineJob({ name: 'square', work: async ({ input }: { input: number }) => input * input });
  const sumSquares = definePipeline({
    name: 'sumSquares',
    machine: setup({ actors: { fanOut } }).createMachine({
      initial: 'fan',
      context: { total: 0 },
      states: {
        fan: {
          invoke: {
            id: 'kids',
            src: 'fanOut',
            input: () => ({ jobs: [1, 2, 3].map((n) => ({ machine: 'square', input: n })) }),
            onDone: {
              target: 'end',
              actions: ({ context, event }) =>
                void (context.total = (event.output as number[]).reduce((a, b) => a + b, 0)),
            },
          },
        },
        end: { type: 'final' },
      },
      output: ({ context }) => context.total,
    }),
  });
  test(
    'fans out to child jobs and joins their outputs (fan-in)',
    [square, sumSquares],
    async ({ client }) => {
      const id = await client.enqueue('sumSquares', {});
      const job = await client.waitForResult(id, { timeoutMs: 8000 });
      assert.deepEqual([job.status, job.output], ['done', 14]);
      const kids = (await client.get(id))!.children!;
      assert.equal(kids.total, 3);
      assert.ok(kids.jobs.every((k) => k.status === 'done'));
    },
  );

  const hang = defineJob({
    name: 'hang',
    work: ({ signal }) =>
      new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
  });
  const fanHang = definePipeline({
    name: 'fanHang',
    machine: setup({ actors: { fanOut } }).createMachine({
      initial: 'fan',
      states: {
        fan: {
          invoke: {
            id: 'k',
            src: 'fanOut',
            input: () => ({ jobs: [{ machine: 'hang' }, { machine: 'hang' }] }),
            onDone: 'end',
          },
        },
        end: { type: 'final' },
      },
    }),
  });
  test('cancels a parent and its whole tree of children', [hang, fanHang], async ({ client }) => {
    const id = await client.enqueue('fanHang', {});
    const kids = [`${id}.k.0`, `${id}.k.1`];
    await eventually(async () => {
      const states = await Promise.all(kids.map((k) => client.get(k)));
      return states.every((s) => s?.status === 'working');
    });
    assert.equal(await client.cancel(id), true);
    for (const k of [id, ...kids]) {
      const job = await client.waitForResult(k, { timeoutMs: 8000 });
      assert.equal(job.status, 'cancelled', k);
    }
  });

  // Nothing but the stop itself may keep the process alive here: on a MemoryStore there is no
  // socket, so a stop that waits on an unref'd timer never ends.
  test(
    'a stop ends a running job once its grace is over, and requeues it',
    [hang],
    async ({ client, sup }) => {
      const id = await client.enqueue('hang', {});
      await eventually(async () => (await client.get(id))?.status === 'working');
      assert.deepEqual(await sup.stop({ graceMs: 0 }), { forced: true, requeued: 1 });
      assert.equal((await client.get(id))!.status, 'queued');
    },
  );

  let fixed = false;
  const fragile = defineJob({
    name: 'fragile',
    retry: { maxAttempts: 2, backoff: { type: 'fixed', delayMs: 10 } },
    work: async () => {
      if (!fixed) throw new Error('not yet');
      return 'fixed';
    },
  });
  test('dead-letters a job out of attempts, and redrives it to success', [fragile], async ({ client }) => {
    fixed = false;
    const id = await client.enqueue('fragile', {});
    const failed = await client.waitForResult(id, { timeoutMs: 8000 });
    assert.deepEqual([failed.status, failed.attempts, failed.error?.message], ['failed', 2, 'not yet']);
    assert.deepEqual(
      (await client.deadLetters()).map((d) => d.id),
      [id],
    );
    fixed = true;
    await client.retryDeadLetter(id);
    const done = await client.waitForResult(id, { timeoutMs: 8000 });
    assert.deepEqual([done.status, done.output, done.attempts], ['done', 'fixed', 1]);
    assert.equal((await client.deadLetters()).length, 0);
  });
}
