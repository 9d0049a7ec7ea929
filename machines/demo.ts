// The definitions `machinist dev` (`npm start`) runs: the example pipelines of machines/ with
// simulated services (slow enough to watch on the dashboard), the simple jobs of the demo, and
// the handful of jobs it enqueues at start so that there is something to look at.

import { RetryLaterError } from '../src/errors.js';
import { approvalPipeline } from './approval.js';
import { ingestPipeline } from './ingest.js';
import { countChunk, splitMerge } from './splitMerge.js';
import demoJobs from '../examples/jobs.js';
import type { AnyDefinition } from '../src/runtime/registry.js';

const pause = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason as Error)), {
      once: true,
    });
  });

/** Each fetch of a URL ending in `?limited` is refused once as rate limited (RetryLaterError). */
const limitedOnce = new Set<string>();

export const approval = approvalPipeline({
  notifyReviewer: async () => pause(300),
  publish: async (documentId) => (await pause(300), `https://docs.example/${documentId}`),
});

export const ingest = ingestPipeline({
  fetchDocument: async (url, { signal }) => {
    await pause(400, signal);
    if (url.endsWith('?limited') && !limitedOnce.has(url)) {
      limitedOnce.add(url);
      throw new RetryLaterError(1_000, 'rate limited: try again in a second');
    }
    return `<title>${url}</title> ${'lorem ipsum dolor '.repeat(40)}`;
  },
  indexDocument: async (doc) => (await pause(300), `idx-${doc.words}`),
});

/** Every definition the dev app runs. */
export const devJobs: AnyDefinition[] = [approval, ingest, splitMerge, countChunk, ...demoJobs];

/** What the dev app enqueues at start: one of each kind of behaviour worth watching. */
export const devSeed: { machine: string; input: unknown; note: string }[] = [
  {
    machine: 'approval',
    input: { documentId: 'contract-42', deadlineMs: 3_600_000 },
    note: 'waits for an APPROVE or REJECT event: send one from its page',
  },
  {
    machine: 'splitMerge',
    input: { text: 'the quick brown fox jumps over the lazy dog '.repeat(60), chunkWords: 60 },
    note: 'fans out child jobs and merges their counts',
  },
  {
    machine: 'deliver-webhook',
    input: { url: 'https://hooks.example/flaky', failTimes: 2 },
    note: 'fails twice, retried with backoff, then succeeds',
  },
  {
    machine: 'ingest',
    input: { url: 'https://docs.example/a?limited' },
    note: 'a 3-step pipeline, rate limited once',
  },
];
