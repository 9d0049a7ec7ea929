// Redriving a dead letter (REDRIVE: failed -> queued) gives the job exactly what a fresh attempt
// needs: a pipeline resumes from the state it failed in with the events it had taken, and a
// failFast fan-out parent re-runs only the children that did not end done.

import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assign, fromPromise, setup } from 'xstate';
import { defineJob, definePipeline, fanOut, NonRetryableError } from '../../src/index.js';
import { eventually, startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';

describe('redrive of a dead letter', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  for (const compile of [true, false]) {
    it(`resumes a pipeline that had taken events from where it failed (compile: ${compile})`, async () => {
      h = new Harness(redis);
      const fixed = { now: false };
      let processed = 0;
      const machine = setup({
        types: { context: {} as { added: number } },
        actors: {
          process: fromPromise(async ({ input }: { input: { added: number } }) => {
            processed++;
            if (!fixed.now) throw new NonRetryableError('not yet');
            return input.added;
          }),
        },
      }).createMachine({
        id: 'collector',
        initial: 'collecting',
        context: { added: 0 },
        output: ({ context }) => ({ added: context.added }),
        states: {
          collecting: {
            on: {
              ADD: [
                {
                  guard: ({ context }) => context.added >= 1,
                  target: 'processing',
                  actions: assign({ added: ({ context }) => context.added + 1 }),
                },
                { actions: assign({ added: ({ context }) => context.added + 1 }) },
              ],
            },
          },
          processing: {
            invoke: {
              id: 'process',
              src: 'process',
              input: ({ context }) => ({ added: context.added }),
              onDone: { target: 'finished', actions: assign({ added: ({ event }) => event.output }) },
            },
          },
          finished: { type: 'final' },
        },
      });
      const collector = definePipeline({ name: 'collector', machine, retry: { maxAttempts: 1 }, compile });
      const client = h.client({ jobs: [collector] });
      await h.started({ jobs: [collector] });
      const id = await client.enqueue('collector', null);
      await eventually(async () => (await client.get(id))?.status === 'waiting');
      await client.send(id, { type: 'ADD' });
      await eventually(async () => (await client.get(id))?.status === 'waiting');
      await client.send(id, { type: 'ADD' });
      const failed = await client.waitForResult(id, { timeoutMs: 5000 });
      assert.equal(failed.status, 'failed');
      assert.equal(processed, 1);
      fixed.now = true;
      await client.retryDeadLetter(id);
      const done = await client.waitForResult(id, { timeoutMs: 5000 });
      assert.equal(done.status, 'done', JSON.stringify([done.error, await client.events(id)]));
      assert.deepEqual(done.output, { added: 2 });
      assert.equal(processed, 2, 'only the failed step ran again');
      assert.equal(done.attempts, 1);
    });
  }

  it('re-runs only the failed children of a failFast parent, which then ends done', async () => {
    h = new Harness(redis);
    const fixed = { now: false };
    const runs = new Map<number, number>();
    const kid = defineJob({
      name: 'kid',
      retry: { maxAttempts: 1 },
      work: async ({ input }: { input: { n: number } }) => {
        runs.set(input.n, (runs.get(input.n) ?? 0) + 1);
        if (input.n === 1 && !fixed.now) throw new Error('kid 1 is broken');
        return input.n * 10;
      },
    });
    const parentMachine = setup({ actors: { fanOut } }).createMachine({
      id: 'parent',
      initial: 'fanning',
      context: { results: [] as unknown[] },
      output: ({ context }) => context.results,
      states: {
        fanning: {
          invoke: {
            id: 'kids',
            src: 'fanOut',
            input: () => ({
              jobs: [0, 1, 2].map((n) => ({ machine: 'kid', input: { n } })),
              policy: 'failFast' as const,
            }),
            onDone: {
              target: 'merged',
              actions: assign({ results: ({ event }) => event.output }),
            },
          },
        },
        merged: { type: 'final' },
      },
    });
    const parent = definePipeline({ name: 'parent', machine: parentMachine, retry: { maxAttempts: 1 } });
    const client = h.client({ jobs: [parent, kid] });
    await h.started({ jobs: [parent, kid], concurrency: 4 });
    const id = await client.enqueue('parent', null);
    const failed = await client.waitForResult(id, { timeoutMs: 5000 });
    assert.equal(failed.status, 'failed');
    assert.equal(failed.error?.code, 'CHILD_FAILED');
    // Every child has ended (done, failed or cancelled) before the redrive.
    await eventually(async () => {
      for (const n of [0, 1, 2]) {
        const s = (await client.get(`${id}.kids.${n}`))?.status;
        if (s !== 'done' && s !== 'failed' && s !== 'cancelled') return false;
      }
      return true;
    });
    const doneBefore = new Set<number>();
    for (const n of [0, 1, 2])
      if ((await client.get(`${id}.kids.${n}`))?.status === 'done') doneBefore.add(n);
    const runsBefore = new Map(runs);
    fixed.now = true;
    await client.retryDeadLetter(id);
    const done = await client.waitForResult(id, { timeoutMs: 5000 });
    assert.equal(done.status, 'done', JSON.stringify(done.error));
    assert.deepEqual(done.output, [0, 10, 20]);
    for (const n of doneBefore)
      assert.equal(runs.get(n), runsBefore.get(n), `child ${n} (done) did not run again`);
    assert.equal((await client.get(`${id}.kids.1`))?.status, 'done');
    assert.deepEqual(await client.deadLetters(), []);
  });
});
