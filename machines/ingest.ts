// Example pipeline: document ingest. fetch -> parse -> index, each step a checkpoint. A rate
// limited fetch throws RetryLaterError: the job steps out of its slot and comes back without
// using up an attempt; a failed step is retried by the lifecycle, from this step, not from scratch.

import { assign, setup } from 'xstate';
import { definePipeline } from '../src/pipeline/definePipeline.js';
import { step } from '../src/pipeline/step.js';

export interface IngestInput {
  url: string;
}

export interface IngestServices {
  /** Fetches the raw document; throw RetryLaterError when rate limited. */
  fetchDocument(url: string, ctx: { idempotencyKey: string; signal: AbortSignal }): Promise<string>;
  /** Stores the index entry; must be idempotent on `idempotencyKey`. */
  indexDocument(
    doc: { url: string; title: string; words: number },
    ctx: { idempotencyKey: string },
  ): Promise<string>;
}

export function ingestMachine(services: IngestServices) {
  return setup({
    types: {
      input: {} as IngestInput,
      context: {} as {
        url: string;
        raw: string | null;
        title: string | null;
        words: number;
        indexId: string | null;
      },
    },
    actors: {
      fetchDocument: step<string, { url: string }>(({ input, idempotencyKey, signal }) =>
        services.fetchDocument(input.url, { idempotencyKey, signal }),
      ),
      parseDocument: step<{ title: string; words: number }, { raw: string }>(async ({ input, progress }) => {
        const title = /<title>(.*?)<\/title>/i.exec(input.raw)?.[1] ?? '(untitled)';
        progress({ parsed: 1 });
        return {
          title,
          words: input.raw
            .replace(/<[^>]+>/g, ' ')
            .split(/\s+/)
            .filter(Boolean).length,
        };
      }),
      indexDocument: step<string, { url: string; title: string; words: number }>(
        ({ input, idempotencyKey }) => services.indexDocument(input, { idempotencyKey }),
      ),
    },
  }).createMachine({
    id: 'ingest',
    initial: 'fetching',
    context: ({ input }) => ({ url: input.url, raw: null, title: null, words: 0, indexId: null }),
    states: {
      fetching: {
        invoke: {
          id: 'fetch',
          src: 'fetchDocument',
          input: ({ context }) => ({ url: context.url }),
          onDone: { target: 'parsing', actions: assign({ raw: ({ event }) => event.output }) },
        },
      },
      parsing: {
        invoke: {
          id: 'parse',
          src: 'parseDocument',
          input: ({ context }) => ({ raw: context.raw ?? '' }),
          onDone: {
            target: 'indexing',
            actions: assign({
              title: ({ event }) => event.output.title,
              words: ({ event }) => event.output.words,
              raw: null,
            }),
          },
        },
      },
      indexing: {
        invoke: {
          id: 'index',
          src: 'indexDocument',
          input: ({ context }) => ({ url: context.url, title: context.title ?? '', words: context.words }),
          onDone: { target: 'indexed', actions: assign({ indexId: ({ event }) => event.output }) },
        },
      },
      indexed: { type: 'final' },
    },
    output: ({ context }) => ({
      url: context.url,
      title: context.title,
      words: context.words,
      indexId: context.indexId,
    }),
  });
}

export function ingestPipeline(services: IngestServices, options: { version?: number } = {}) {
  return definePipeline({
    name: 'ingest',
    version: options.version ?? 1,
    machine: ingestMachine(services),
    retry: { maxAttempts: 3, backoff: { type: 'exponential', delayMs: 100 } },
  });
}
