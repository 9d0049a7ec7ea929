// A user's program, as a TypeScript user would write it (strict): a typed client, a pipeline with
// a durable timer, and a redeploy whose `migrate` renames a state while a job waits in it.
// `npm test` runs it (test/examples/typedApp.test.ts); by hand:
//   REDIS_URL=redis://127.0.0.1:6379 node --import tsx examples/typedApp.ts
// It prints one line per step and exits 0 when every job ended as expected.

import { assign, setup } from 'xstate';
import { Client, definePipeline, defineJob, RedisStore, renameStates, Supervisor } from '../src/index.js';
import type { WorkArgs } from '../src/index.js';

const store = new RedisStore({
  url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  prefix: `machinist-typed-${process.pid}`,
});

// A simple job: its input and output types come from `work`.
const greet = defineJob({
  name: 'greet',
  work: async ({ input }: WorkArgs<{ name: string }, undefined>) => ({ greeting: `hello ${input.name}` }),
});

// A pipeline that waits out a durable timer (it parks, holding no worker) and then finishes.
// Version 1 names the waiting state `cooling`.
const reminderV1 = definePipeline({
  name: 'reminder',
  version: 1,
  machine: setup({
    types: { input: {} as { note: string }, context: {} as { note: string }, output: {} as { sent: string } },
  }).createMachine({
    id: 'reminder',
    initial: 'cooling',
    context: ({ input }) => ({ note: input.note }),
    states: {
      cooling: { after: { 1500: 'sending' } },
      sending: { type: 'final' },
    },
    output: ({ context }) => ({ sent: context.note }),
  }),
});

// Version 2 renames the state to `waiting`; its migrate moves parked version-1 jobs along.
const reminderV2 = definePipeline({
  name: 'reminder',
  version: 2,
  machine: setup({
    types: { input: {} as { note: string }, context: {} as { note: string }, output: {} as { sent: string } },
  }).createMachine({
    id: 'reminder',
    initial: 'waiting',
    context: ({ input }) => ({ note: input.note }),
    states: {
      waiting: {
        after: {
          1500: { target: 'sending', actions: assign({ note: ({ context }) => `${context.note}!` }) },
        },
      },
      sending: { type: 'final' },
    },
    output: ({ context }) => ({ sent: context.note }),
  }),
  // renameStates renames in the snapshot's value and in what its history states remember.
  migrate: (snapshot, fromVersion) =>
    fromVersion === 1 ? renameStates(snapshot, { cooling: 'waiting' }) : snapshot,
});

function check(ok: boolean, what: string): void {
  console.log(`${ok ? 'ok' : 'NOT OK'} - ${what}`);
  if (!ok) process.exitCode = 1;
}

async function main(): Promise<void> {
  const quiet = { level: 'silent' } as const;
  const { pino } = await import('pino');
  const v1 = new Supervisor({
    store,
    jobs: [greet, reminderV1],
    logger: pino(quiet),
    registryRefreshMs: 60_000,
  });
  await v1.start();

  // The client is typed by its jobs: names, inputs and outputs.
  const client = new Client({ store, jobs: [greet, reminderV1] });
  const greetId = await client.enqueue('greet', { name: 'ana' });
  const greeted = await client.waitForResult(greetId, { timeoutMs: 10_000 });
  check(greeted.output?.greeting === 'hello ana', `greet: ${JSON.stringify(greeted.output)}`);

  const reminderId = await client.enqueue(reminderV1, { note: 'water the plants' });
  for (let i = 0; i < 100 && (await client.get(reminderId))?.status !== 'waiting'; i++)
    await new Promise((r) => setTimeout(r, 20));
  check((await client.get(reminderId))?.state === 'cooling', 'reminder parked in cooling under v1');

  // Redeploy: v1's supervisor stops; v2's starts and migrates the parked job.
  await v1.stop({ graceMs: 1000 });
  const v2 = new Supervisor({
    store,
    jobs: [greet, reminderV2],
    logger: pino(quiet),
    registryRefreshMs: 60_000,
  });
  await v2.start();
  const reminded = await client.waitForResult(reminderId, { timeoutMs: 10_000 });
  check(reminded.status === 'done', `reminder ${reminded.status} after the redeploy`);
  check(reminded.output?.sent === 'water the plants!', `reminder output: ${JSON.stringify(reminded.output)}`);
  check(reminded.version === 2, `reminder now on version ${reminded.version}`);

  await v2.stop({ graceMs: 1000 });
  client.close();
  const keys = await store.redis.keys(`machinist-typed-${process.pid}:*`);
  if (keys.length > 0) await store.redis.del(...keys);
  await store.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
