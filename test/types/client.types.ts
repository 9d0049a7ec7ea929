// Compile-time tests of the types that flow from a definition to the client. Checked by
// `tsc` (types.test.ts, part of npm test; and npm run typecheck): every `@ts-expect-error` line
// must be an error, every other line must compile. Never run.

import { setup } from 'xstate';
import { z } from 'zod';
import {
  Client,
  defineJob,
  definePipeline,
  step,
  type JobId,
  type JobRecord,
  type LoadArgs,
  type Store,
  type WorkArgs,
} from '../../src/index.js';
import { createTestHarness } from '../../src/testing/index.js';

declare const store: Store;

/** Exact type equality (not mere assignability). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** `is<T>()(value)` fails to compile unless value's type is exactly T. */
const is =
  <Expected>() =>
  <Actual>(_value: Actual, ..._exact: Equal<Actual, Expected> extends true ? [] : [never]): void => {};

interface ResizeInput {
  url: string;
  width: number;
}

// defineJob infers input from work's annotation, output from its result, the name as written.
const resize = defineJob({
  name: 'resize',
  work: async ({ input }: { input: ResizeInput }) => ({ path: `${input.url}@${input.width}` }),
});
// ...or from load's annotation, with work's arguments then typed from it.
const thumb = defineJob({
  name: 'thumb',
  load: async ({ input }: LoadArgs<{ src: string }>) => input.src.length,
  work: async ({ input, loaded }) => ({ src: input.src, bytes: loaded }),
});
// A job that takes no input.
const tick = defineJob({ name: 'tick', work: () => 1 });

const ingestMachine = setup({
  types: { input: {} as { url: string }, output: {} as { pages: number }, context: {} as { url: string } },
  actors: { fetchDoc: step(async ({ input }: { input: string }) => input.length) },
}).createMachine({
  context: ({ input }) => ({ url: input.url }),
  initial: 'fetching',
  states: {
    fetching: {
      invoke: { id: 'fetch', src: 'fetchDoc', input: ({ context }) => context.url, onDone: 'done' },
    },
    done: { type: 'final' },
  },
  output: () => ({ pages: 1 }),
});
// definePipeline takes input and output from the machine's types.
const ingest = definePipeline({ name: 'ingest', machine: ingestMachine });

is<'resize'>()(resize.name);
is<'ingest'>()(ingest.name);

async function typed(): Promise<void> {
  const client = new Client({ store, jobs: [resize, thumb, tick, ingest] });

  // Names and inputs are checked.
  const id = await client.enqueue('resize', { url: 'a.png', width: 640 }, { priority: 'high' });
  is<JobId<{ path: string }>>()(id);
  // @ts-expect-error -- 'greet' is not one of the client's jobs
  await client.enqueue('greet', { url: 'a.png', width: 640 });

  // enqueueAndWait: checked as enqueue, and the record typed by the job's output.
  const rec = await client.enqueueAndWait('resize', { url: 'a.png', width: 640 }, {}, { timeoutMs: 5000 });
  is<JobRecord<{ path: string }>>()(rec);
  const waited = await client.enqueueAndWaitWithInfo('resize', { url: 'a.png', width: 640 });
  is<JobId<{ path: string }>>()(waited.id);
  is<JobRecord<{ path: string }>>()(await waited.result);
  // @ts-expect-error -- a misspelt field of resize's input
  await client.enqueueAndWait('resize', { url: 'a.png', widht: 640 });
  // @ts-expect-error -- a misspelt field of resize's input
  await client.enqueue('resize', { url: 'a.png', widht: 640 });
  // @ts-expect-error -- an extra field is refused too (excess property)
  await client.enqueue('resize', { url: 'a.png', width: 640, extra: true });
  // @ts-expect-error -- resize's input may not be left out
  await client.enqueue('resize');
  // @ts-expect-error -- a wrong option
  await client.enqueue('resize', { url: 'a.png', width: 640 }, { priority: 'urgent' });
  await client.enqueue('tick'); // no input needed
  await client.enqueue('thumb', { src: 'x' });
  // @ts-expect-error -- thumb's input comes from load's annotation
  await client.enqueue('thumb', { src: 1 });

  // A definition stands for its name, typed the same.
  const byDef = await client.enqueue(resize, { url: 'a.png', width: 1 });
  is<JobId<{ path: string }>>()(byDef);
  // @ts-expect-error -- a definition's input is checked as well
  await client.enqueue(resize, { url: 'a.png' });
  // @ts-expect-error -- a definition the client was not given
  await client.enqueue(defineJob({ name: 'other', work: () => 1 }));

  // Pipelines: input and output from the machine's types.
  const pid = await client.enqueue('ingest', { url: 'https://x' });
  is<JobId<{ pages: number }>>()(pid);
  // @ts-expect-error -- ingest takes { url: string }
  await client.enqueue('ingest', { href: 'https://x' });

  // Results are typed by the id they are asked with; a plain string gives unknown.
  const job = await client.waitForResult(id, { timeoutMs: 1000 });
  is<JobRecord<{ path: string }>>()(job);
  is<{ path: string } | null>()(job.output);
  const got = await client.get(pid);
  is<JobRecord<{ pages: number }> | null>()(got);
  const plain = await client.waitForResult('01J0000000000000000000000');
  is<unknown>()(plain.output);
  // @ts-expect-error -- resize's output has no `pages`
  void job.output?.pages;

  // enqueueMany: each item is checked against its own machine; ids come back in order, typed.
  const ids = await client.enqueueMany([
    { machine: 'resize', input: { url: 'a', width: 1 } },
    { machine: ingest, input: { url: 'b' } },
    { machine: 'tick' },
  ]);
  is<[JobId<{ path: string }>, JobId<{ pages: number }>, JobId<number>]>()(ids);
  await client.enqueueMany([
    { machine: 'resize', input: { url: 'a', width: 1 } },
    // @ts-expect-error -- the second item's input is resize's, not ingest's
    { machine: 'ingest', input: { url: 'a', width: 1 } },
  ]);
  // @ts-expect-error -- a missing input
  await client.enqueueMany([{ machine: 'resize' }]);
  // @ts-expect-error -- an unknown machine in a batch
  await client.enqueueMany([{ machine: 'greet', input: {} }]);
  const many = await client.enqueueMany(
    ['a', 'b'].map((url) => ({ machine: 'ingest' as const, input: { url } })),
  );
  is<JobId<{ pages: number }>[]>()(many);
  // enqueueManyWithInfo: enqueueMany's ids, each with whether a key kept it.
  const stored = await client.enqueueManyWithInfo([
    { machine: 'resize', input: { url: 'a', width: 1 } },
    { machine: 'tick' },
  ]);
  is<JobId<{ path: string }>>()(stored[0].id);
  is<boolean>()(stored[1].deduplicated);
  // @ts-expect-error -- the input is checked as enqueueMany's
  await client.enqueueManyWithInfo([{ machine: 'resize', input: { url: 1 } }]);

  // enqueueManyAndWait: items checked as enqueueMany's, the records typed in order.
  const recs = await client.enqueueManyAndWait(
    [
      { machine: 'resize', input: { url: 'a', width: 1 } },
      { machine: ingest, input: { url: 'b' } },
      { machine: 'tick' },
    ],
    { timeoutMs: 5000 },
  );
  is<[JobRecord<{ path: string }>, JobRecord<{ pages: number }>, JobRecord<number>]>()(recs);
  const infos = await client.enqueueManyAndWaitWithInfo([
    { machine: 'resize', input: { url: 'a', width: 1 } },
    { machine: 'tick' },
  ]);
  is<JobId<{ path: string }>>()(infos[0].id);
  is<boolean>()(infos[1].deduplicated);
  is<JobRecord<number>>()(await infos[1].result);
  await client.enqueueManyAndWait([
    // @ts-expect-error -- a misspelt field of resize's input
    { machine: 'resize', input: { url: 'a', widht: 1 } },
  ]);
  const waitedMany = await client.enqueueManyAndWait(
    ['a', 'b'].map((url) => ({ machine: 'ingest' as const, input: { url } })),
  );
  is<JobRecord<{ pages: number }>[]>()(waitedMany);

  // Ids are strings wherever a string is wanted.
  await client.cancel(id);
  await client.events(id);
}

async function untyped(): Promise<void> {
  // Without jobs: any name, any input, unknown outputs.
  const client = new Client({ store });
  const id = await client.enqueue('greet', { nmae: 'typo' });
  is<JobId<unknown>>()(id);
  await client.enqueue('greet');
  const job = await client.waitForResult(id);
  is<unknown>()(job.output);
  // A definition still types what it is given.
  const rid = await client.enqueue(resize, { url: 'a', width: 1 });
  is<JobId<{ path: string }>>()(rid);
  // @ts-expect-error -- even untyped, a definition's input is checked
  await client.enqueue(resize, { nmae: 'typo' });
  const ids = await client.enqueueMany([{ machine: 'greet', input: 1 }]);
  is<[JobId<unknown>]>()(ids);
  const recs = await client.enqueueManyAndWait([{ machine: 'greet', input: 1 }]);
  is<[JobRecord<unknown>]>()(recs);
  // @ts-expect-error -- a machine is still a string or a definition
  await client.enqueue(42);
}

// A work function that reads its input without saying its type is an error under strict.
defineJob({
  name: 'loose',
  // @ts-expect-error -- input is unknown: annotate it
  work: async ({ input }) => input.url,
});

// A hand-written WorkArgs annotation types loaded too.
defineJob({
  name: 'annotated',
  load: async () => new Uint8Array(1),
  work: async ({ input, loaded }: WorkArgs<ResizeInput, Uint8Array>) => loaded.length + input.width,
});

// An input schema types the job: `work` gets the schema's output (defaults applied), and
// enqueue takes the schema's input (what it accepts, a defaulted field optional).
const crop = defineJob({
  name: 'crop',
  input: z.object({ url: z.string(), width: z.number().default(640) }),
  work: ({ input }) => {
    is<{ url: string; width: number }>()(input);
    return input.width;
  },
});
const pdf = definePipeline({
  name: 'pdf',
  machine: ingestMachine,
  input: z.object({ url: z.string().url() }),
});
// @ts-expect-error -- a pipeline's schema must give the machine's input type
definePipeline({ name: 'badpdf', machine: ingestMachine, input: z.object({ href: z.string() }) });
defineJob({
  name: 'clash',
  // @ts-expect-error -- work's annotation must agree with the schema's output
  input: z.object({ n: z.number() }),
  work: ({ input }: { input: { n: string } }) => input.n,
});

async function schemaTyped(): Promise<void> {
  const client = new Client({ store, jobs: [crop, pdf] });
  const id = await client.enqueue('crop', { url: 'a.png' }); // width has a default
  is<JobId<number>>()(id);
  await client.enqueue(crop, { url: 'a.png', width: 10 });
  // @ts-expect-error -- the schema's input type is checked
  await client.enqueue('crop', { url: 1 });
  // @ts-expect-error -- and its required fields
  await client.enqueue('crop', { width: 1 });
  is<JobId<{ pages: number }>>()(await client.enqueue('pdf', { url: 'https://x' }));
  // @ts-expect-error -- pdf's schema takes { url }
  await client.enqueue('pdf', { href: 'https://x' });
}

void typed;
void untyped;
void schemaTyped;

// The test harness's job(id) keeps the output type of a typed id, as waitForResult does.
async function harness(): Promise<void> {
  const h = await createTestHarness({ jobs: [resize, ingest] });
  const id = await h.client.enqueue('resize', { url: 'a', width: 1 });
  const done = await h.job(id);
  is<JobRecord<{ path: string }>>()(done);
  is<{ path: string } | null>()(done.output);
  // @ts-expect-error -- resize's output has no `pages`
  void done.output?.pages;
  const plain = await h.job('01J0000000000000000000000');
  is<unknown>()(plain.output);
  await h.close();
}
void harness;
