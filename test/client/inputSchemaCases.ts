// Input schemas (Standard Schema; zod here) checked at enqueue by the Client: the cases both
// stores must pass (inputSchema.test.ts on Redis, inputSchemaMemory.test.ts on a MemoryStore).

import assert from 'node:assert/strict';
import { assign, setup } from 'xstate';
import { z } from 'zod';
import { InputSchemaError, ValidationError, defineJob, definePipeline, fanOut } from '../../src/index.js';
import type { Store } from '../../src/store/types.js';
import type { StoreWorld } from '../support/storeWorld.js';

export const resize = defineJob({
  name: 'resize',
  retry: { maxAttempts: 2, backoff: { type: 'fixed', delayMs: 10 } },
  input: z.object({ url: z.string().url(), sizes: z.array(z.number().int().positive()) }),
  work: ({ input }: { input: { url: string; sizes: number[] } }) =>
    input.sizes.map((s) => `${input.url}@${s.toFixed(0)}`),
});

/** What an enqueue came to: the error it was refused with, or the error its job ended with. */
async function outcome(world: StoreWorld<Store>, machine: string, input: unknown): Promise<unknown> {
  const client = world.client({ jobs: [resize] });
  return client.enqueue(machine as 'resize', input as never).then(
    async (id) => (await client.waitForResult(id, { timeoutMs: 10_000 })).error?.message,
    (err: unknown) => err,
  );
}

export async function refusesBadInputAtEnqueue(world: StoreWorld<Store>): Promise<void> {
  await world.started({ jobs: [resize] });
  // Without the check, the job would run and fail each attempt with a TypeError in `work`.
  const none = await outcome(world, 'resize', undefined);
  assert.ok(none instanceof ValidationError, `no input is refused at enqueue, not run: got ${String(none)}`);
  assert.equal(none.field, 'input');
  const err = await outcome(world, 'resize', { url: 'https://example.com/a.png', sizes: [640, 'big'] });
  assert.ok(err instanceof ValidationError, `refused at enqueue, not run: got ${String(err)}`);
  assert.equal(err.code, 'INVALID_INPUT');
  assert.equal(err.machine, 'resize');
  assert.equal(err.field, 'input.sizes[1]');
  assert.match(err.message, /input\.sizes\[1\]/);
  const { jobs } = await world.client().list({});
  assert.equal(jobs.length, 0, 'nothing was written');
}

export async function storesTheParsedValue(world: StoreWorld<Store>): Promise<void> {
  const seen: unknown[] = [];
  const crop = defineJob({
    name: 'crop',
    input: z.object({
      url: z.string().trim(),
      width: z.number().default(640),
      tags: z.string().transform((t) => t.split(',')),
    }),
    work: ({ input }) => void seen.push(input),
  });
  await world.started({ jobs: [crop] });
  const client = world.client({ jobs: [crop] });
  const id = await client.enqueue('crop', { url: '  a.png ', tags: 'x,y' });
  const parsed = { url: 'a.png', width: 640, tags: ['x', 'y'] };
  assert.deepEqual((await client.get(id))?.input, parsed, 'the record holds the schema’s output');
  await client.waitForResult(id, { timeoutMs: 10_000 });
  assert.deepEqual(seen, [parsed], 'work got it once, transformed once');
}

export async function awaitsAnAsyncSchema(world: StoreWorld<Store>): Promise<void> {
  const greet = defineJob({
    name: 'greet',
    input: z.object({ user: z.string().refine(async (u) => u !== 'mallory', 'is not allowed') }),
    work: ({ input }) => `hello ${input.user}`,
  });
  await world.started({ jobs: [greet] });
  const client = world.client({ jobs: [greet] });
  await assert.rejects(client.enqueue('greet', { user: 'mallory' }), (err: unknown) => {
    assert.ok(err instanceof InputSchemaError);
    assert.equal(err.field, 'input.user');
    assert.deepEqual(err.issues, [{ path: 'input.user', message: 'is not allowed' }]);
    return true;
  });
  await assert.rejects(
    client.enqueueMany([
      { machine: 'greet', input: { user: 'ana' } },
      { machine: 'greet', input: { user: 'mallory' } },
    ]),
    (err: unknown) => err instanceof InputSchemaError && err.field === 'input.user',
  );
  assert.equal((await client.list({})).jobs.length, 0, 'a refused batch writes none of its jobs');
  const [a, b] = await Promise.all([
    client.enqueue('greet', { user: 'ana' }),
    client.enqueue(greet, { user: 'bo' }),
  ]);
  const outputs = await Promise.all([a, b].map(async (id) => (await client.waitForResult(id)).output));
  assert.deepEqual(outputs, ['hello ana', 'hello bo']);
}

export async function withoutASchemaNothingChanges(world: StoreWorld<Store>): Promise<void> {
  const echo = defineJob({ name: 'echo', work: ({ input }: { input: unknown }) => input ?? 'nothing' });
  await world.started({ jobs: [echo] });
  const client = world.client({ jobs: [echo] });
  const ids = [await client.enqueue('echo', undefined), await client.enqueue('echo', { any: [1] })];
  const out = await Promise.all(ids.map(async (id) => (await client.waitForResult(id)).output));
  assert.deepEqual(out, ['nothing', { any: [1] }]);
}

/** A fan-out's children are checked too, before any of them is written: the step fails with it. */
export async function checksFanOutChildren(world: StoreWorld<Store>): Promise<void> {
  const parent = definePipeline({
    name: 'album',
    machine: setup({ actors: { fanOut } }).createMachine({
      initial: 'fan',
      context: { why: '' },
      states: {
        fan: {
          invoke: {
            id: 'kids',
            src: 'fanOut',
            input: () => ({
              jobs: [
                { machine: 'resize', input: { url: 'https://example.com/a.png', sizes: [1] } },
                { machine: 'resize', input: { url: 'not a url', sizes: [1] } },
              ],
            }),
            onDone: 'end',
            onError: {
              target: 'end',
              actions: assign({
                why: ({ event }) =>
                  `${(event.error as InputSchemaError).code} ${(event.error as InputSchemaError).field}`,
              }),
            },
          },
        },
        end: { type: 'final' },
      },
      output: ({ context }) => context.why,
    }),
  });
  await world.started({ jobs: [resize, parent] });
  const client = world.client();
  const id = await client.enqueue('album', {});
  const rec = await client.waitForResult(id, { timeoutMs: 10_000 });
  assert.equal(rec.output, 'INVALID_INPUT input.url');
  assert.equal((await client.list({ parentId: id })).jobs.length, 0, 'no child was written');
}
