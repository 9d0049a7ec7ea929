// Example pipeline: split a text into chunks, count each chunk's words in a child job (fan-out,
// possibly on another queue and other workers), then merge the counts (fan-in). While the
// children run the parent is parked: no worker slot, no memory.

import { setTimeout as sleep } from 'node:timers/promises';
import { assign, setup } from 'xstate';
import { defineJob } from '../src/runtime/defineJob.js';
import { definePipeline } from '../src/pipeline/definePipeline.js';
import { fanOut } from '../src/pipeline/fanOut.js';

export interface SplitInput {
  text: string;
  /** Words per chunk. Default 100. */
  chunkWords?: number;
  /** Queue the chunk jobs go to. Default: the parent's. */
  chunkQueue?: string;
  policy?: 'failFast' | 'collect';
  /**
   * How long each chunk's count takes, a stand-in for real work (default 0): chunk i takes
   * chunkMs * (1 + i % 3), so the children end at different times (machines/demo.ts).
   */
  chunkMs?: number;
}

/** The child: counts the words of one chunk (throws on a chunk containing "POISON"). */
export const countChunk = defineJob({
  name: 'countChunk',
  work: async ({ input, signal }: { input: { words: string[]; ms?: number }; signal: AbortSignal }) => {
    if (input.ms) await sleep(input.ms, undefined, { signal });
    if (input.words.includes('POISON')) throw new Error('poisoned chunk');
    const counts: Record<string, number> = {};
    for (const w of input.words) counts[w.toLowerCase()] = (counts[w.toLowerCase()] ?? 0) + 1;
    return { words: input.words.length, distinct: Object.keys(counts).length };
  },
  retry: { maxAttempts: 1 },
});

type ChunkResult = { words: number; distinct: number };

export const splitMergeMachine = setup({
  types: {
    input: {} as SplitInput,
    context: {} as {
      chunks: string[][];
      queue: string | undefined;
      policy: 'failFast' | 'collect';
      results: unknown[];
      total: number;
      chunkMs: number;
    },
  },
  actors: { fanOut },
}).createMachine({
  id: 'splitMerge',
  initial: 'counting',
  context: ({ input }) => {
    const words = input.text.split(/\s+/).filter(Boolean);
    const size = input.chunkWords ?? 100;
    const chunks: string[][] = [];
    for (let i = 0; i < words.length; i += size) chunks.push(words.slice(i, i + size));
    return {
      chunks,
      queue: input.chunkQueue,
      policy: input.policy ?? 'failFast',
      results: [],
      total: 0,
      chunkMs: input.chunkMs ?? 0,
    };
  },
  states: {
    counting: {
      invoke: {
        id: 'chunks',
        src: 'fanOut',
        input: ({ context }) => ({
          jobs: context.chunks.map((words, i) => ({
            machine: 'countChunk',
            input: context.chunkMs ? { words, ms: context.chunkMs * (1 + (i % 3)) } : { words },
            queue: context.queue,
          })),
          policy: context.policy,
        }),
        onDone: { target: 'merging', actions: assign({ results: ({ event }) => event.output, chunks: [] }) },
        onError: 'failed',
      },
    },
    merging: {
      always: {
        target: 'merged',
        actions: assign({
          total: ({ context }) =>
            context.results.reduce<number>((n, r) => {
              const out = (r as { status?: string; output?: ChunkResult } & Partial<ChunkResult>) ?? {};
              return n + (out.status ? (out.output?.words ?? 0) : (out.words ?? 0));
            }, 0),
        }),
      },
    },
    merged: { type: 'final' },
    failed: { type: 'final' },
  },
  output: ({ context }) => ({
    chunks: context.results.length,
    words: context.total,
    results: context.results,
  }),
});

export const splitMerge = definePipeline({ name: 'splitMerge', version: 1, machine: splitMergeMachine });
