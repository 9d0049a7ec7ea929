// Pipelines of the bench's workloads 6 and 7 (shared by workloads/pipeline.ts and worker.ts).

import { assign, setup } from 'xstate';
import { definePipeline, fanOut, step } from '../src/index.js';
import { FAN_NAME, JOB_NAME, PARKED_NAME, PIPELINE_NAME, PIPELINE_YIELD_NAME } from './common.js';

// Workload 6: three no-op steps; the pipeline runtime checkpoints after each. A no-op step
// settles within the same turn of the event loop, so the checkpoints of one job coalesce into
// its final write (see runCompiledPipeline.ts); 6b's steps yield once, so each is written, but
// for one still waiting in line (two commits in flight) when the next is queued: the two go as
// one op (COALESCING, src/supervisor/CommitWrites.ts; the row 'checkpoints written per job').
const threeStepMachine = (name: string, work: () => Promise<number>) =>
  definePipeline({
    name,
    machine: setup({ actors: { noopStep: step(work) } }).createMachine({
      initial: 'one',
      states: {
        one: { invoke: { id: 's1', src: 'noopStep', onDone: 'two' } },
        two: { invoke: { id: 's2', src: 'noopStep', onDone: 'three' } },
        three: { invoke: { id: 's3', src: 'noopStep', onDone: 'end' } },
        end: { type: 'final' },
      },
    }),
  });
export const threeSteps = threeStepMachine(PIPELINE_NAME, async () => 1);
export const threeStepsYield = threeStepMachine(
  PIPELINE_YIELD_NAME,
  () => new Promise<number>((resolve) => setImmediate(() => resolve(1))),
);

// Workload 7: fan out `n` no-op children, merge their outputs (count them).
export const fanMerge = definePipeline({
  name: FAN_NAME,
  machine: setup({
    types: { input: {} as { n: number }, context: {} as { n: number; merged: number } },
    actors: { fanOut },
  }).createMachine({
    initial: 'fan',
    context: ({ input }) => ({ n: input.n, merged: 0 }),
    states: {
      fan: {
        invoke: {
          id: 'kids',
          src: 'fanOut',
          input: ({ context }) => ({
            jobs: Array.from({ length: context.n }, (_, i) => ({ machine: JOB_NAME, input: i })),
          }),
          onDone: {
            target: 'merged',
            actions: assign({ merged: ({ event }) => event.output.length }),
          },
        },
      },
      merged: { type: 'final' },
    },
    output: ({ context }) => context.merged,
  }),
});

// A pipeline that waits in state `parked` (its config given) until it ends; `input.at` (ms) is
// its delay `due`'s end. Named so that every job comes due at the same instant, however long
// after its enqueue it started. `compile: false` runs it on XState actors.
export const parkedPipeline = <N extends string>(name: N, parked: object, compile?: boolean) =>
  definePipeline({
    name,
    ...(compile === undefined ? {} : { compile }),
    machine: setup({
      types: { input: {} as { at: number }, context: {} as { at: number } },
      delays: { due: ({ context }) => Math.max(0, context.at - Date.now()) },
    }).createMachine({
      initial: 'parked',
      context: ({ input }) => ({ at: input.at }),
      states: { parked: parked as never, end: { type: 'final' } },
    }),
  });

// Workload 15: waits on a durable `after` timer until `input.at`, then ends. `compile: false`:
// on XState actors (the held-job probes' BENCH_HELD_RUNTIME=xstate).
export const parkUntilOn = (compile?: boolean) =>
  parkedPipeline(PARKED_NAME, { after: { due: 'end' } }, compile);
export const parkUntil = parkUntilOn();
