import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assign, setup } from 'xstate';
import { Client, ValidationError, defineJob, definePipeline, step } from '../../src/index.js';
import { startRedis, type TestRedis } from '../support/redis.js';
import { Harness } from '../support/harness.js';

const double = defineJob({
  name: 'double',
  version: 2,
  work: async ({ input }: { input: { n: number } }) => ({ twice: input.n * 2 }),
});

const shout = definePipeline({
  name: 'shout',
  machine: setup({
    types: { input: {} as { word: string }, context: {} as { word: string }, output: {} as string },
    actors: { upper: step(async ({ input }: { input: string }) => input.toUpperCase()) },
  }).createMachine({
    context: ({ input }) => ({ word: input.word }),
    initial: 'a',
    states: {
      a: {
        invoke: {
          id: 'upper',
          src: 'upper',
          input: ({ context }) => context.word,
          onDone: { target: 'b', actions: assign({ word: ({ event }) => event.output }) },
        },
      },
      b: { type: 'final' },
    },
    output: ({ context }) => context.word,
  }),
});

describe('enqueue by definition', () => {
  let redis: TestRedis;
  let h: Harness;
  before(async () => (redis = await startRedis()));
  after(async () => redis.stop());
  afterEach(async () => h.close());

  it('a definition in place of its name enqueues that job, on a typed client and an untyped one', async () => {
    h = new Harness(redis);
    await h.started({ jobs: [double, shout] });
    const typed = new Client({ store: h.store, jobs: [double, shout] });
    try {
      const a = await typed.enqueue(double, { n: 4 });
      const b = await typed.enqueue(shout, { word: 'hi' });
      const rec = await typed.waitForResult(a, { timeoutMs: 10_000 });
      assert.equal(rec.machine, 'double');
      assert.equal(rec.version, 2, "the definition's name, at the newest registered version");
      assert.deepEqual(rec.output, { twice: 8 });
      assert.equal((await typed.waitForResult(b, { timeoutMs: 10_000 })).output, 'HI');
    } finally {
      typed.close();
    }
    // Without jobs: the name comes from the definition, the version from the published registry.
    const untyped = h.client();
    const c = await untyped.enqueue(double, { n: 5 });
    assert.deepEqual((await untyped.waitForResult(c, { timeoutMs: 10_000 })).output, { twice: 10 });
  });

  it('enqueueMany takes definitions and names mixed, ids in order', async () => {
    h = new Harness(redis);
    await h.started({ jobs: [double, shout] });
    const client = h.client({ jobs: [double, shout] });
    const [x, y, z] = await client.enqueueMany([
      { machine: double, input: { n: 1 } },
      { machine: 'shout', input: { word: 'ok' } },
      { machine: 'double', input: { n: 3 } },
    ]);
    const out = await Promise.all([x, y, z].map((id) => client.waitForResult(id, { timeoutMs: 10_000 })));
    assert.deepEqual(
      out.map((r) => r.output),
      [{ twice: 2 }, 'OK', { twice: 6 }],
    );
  });

  it('refuses something that is neither a name nor a definition, writing nothing', async () => {
    h = new Harness(redis);
    const client = h.client({ jobs: [double] });
    for (const machine of [42, { name: 'double' }, null]) {
      await assert.rejects(
        () => client.enqueue(machine as never, { n: 1 }),
        (err: unknown) => err instanceof ValidationError && err.field === 'machine',
      );
      await assert.rejects(
        () => client.enqueueMany([{ machine: machine as never, input: { n: 1 } }]),
        (err: unknown) => err instanceof ValidationError && err.field === 'machine',
      );
    }
    assert.deepEqual(await h.keys(), []);
  });
});
