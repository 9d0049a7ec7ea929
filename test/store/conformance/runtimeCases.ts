// The same backends under the real runtime: a Supervisor and a Client on top of the store, for
// the paths a user's jobs take (a simple job, a retry with backoff, a pipeline that parks and
// gets an event, a fan-out with fan-in, the cancel of a tree, a dead letter and its redrive).

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { setup } from 'xstate';
import { Client, Supervisor, defineJob, definePipeline, fanOut } from '../../../src/index.js';
import type { AnyDefinition } from '../../../src/runtime/registry.js';
import type { Store } from '../../../src/store/types.js';
import { approvalPipeline } from '../../../machines/approval.js';
import type { StoreFactory } from './storeFactory.js';

const FAST = { leaseMs: 1000, heartbeatMs: 250, reaperIntervalMs: 200 } as const;

/** Polls `fn` until it is truthy (bounded generously: no timed assertion). */
async function eventually<T>(fn: () => Promise<T>, timeoutMs = 8000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export function runtimeCases(factory: StoreFactory): void {
  /** A fresh store with a running supervisor and a client, stopped at the end whatever happens. */
  const test = (
    name: string,
    jobs: AnyDefinition[],
    fn: (t: { store: Store; client: Client; sup: Supervisor }) => Promise<void>,
  ) =>
    void it(name, async () => {
      const store = await factory.make();
      const sup = new Supervisor({ store, jobs, concurrency: 8, logger: pino({ level: 'silent' }), ...FAST });
      const client = new Client({ store, jobs });
      try {
        await sup.start();
        await fn({ store, client, sup });
      } finally {
        await sup.stop({ graceMs: 0 });
        client.close();
        await store.close();
      }
    });

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
