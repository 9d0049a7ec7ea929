// Pipelines of the bench's workloads 6 and 7 (shared by run.ts and worker.ts).

import { assign, setup } from 'xstate';
import { definePipeline, fanOut, step } from '../src/index.js';
import { FAN_NAME, JOB_NAME, PIPELINE_NAME } from './common.js';

// Workload 6: three no-op steps; the pipeline runtime checkpoints after each.
const noopStep = step(async () => 1);
export const threeSteps = definePipeline({
  name: PIPELINE_NAME,
  machine: setup({ actors: { noopStep } }).createMachine({
    initial: 'one',
    states: {
      one: { invoke: { id: 's1', src: 'noopStep', onDone: 'two' } },
      two: { invoke: { id: 's2', src: 'noopStep', onDone: 'three' } },
      three: { invoke: { id: 's3', src: 'noopStep', onDone: 'end' } },
      end: { type: 'final' },
    },
  }),
});

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
