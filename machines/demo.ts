// The definitions `machinist dev` (`npm start`) runs: the example pipelines of machines/ with
// simulated services, the simple jobs of the demo, the handful of jobs it enqueues at start and a
// schedule, so that there is something to look at. HUMAN PACE: everything takes seconds, so a
// person who opens the dashboard sees it happen (a retry's backoff counting down, children of a
// fan-out ending one by one, a schedule ticking every 10 s). MACHINIST_DEMO_PACE scales every
// duration (the tests run it at 0.05; default 1).

import { RetryLaterError } from '../src/errors.js';
import { approvalPipeline } from './approval.js';
import { ingestPipeline } from './ingest.js';
import { countChunk, splitMerge } from './splitMerge.js';
import demoJobs, { deliverWebhookJob } from '../examples/jobs.js';
import type { AnyDefinition } from '../src/runtime/registry.js';

/** Every demo duration's factor (MACHINIST_DEMO_PACE: a positive number; default 1). */
export const PACE = ((v) => (Number.isFinite(v) && v > 0 ? v : 1))(
  Number(process.env.MACHINIST_DEMO_PACE ?? 1),
);
const paced = (ms: number): number => Math.round(ms * PACE);

const pause = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    const t = setTimeout(resolve, paced(ms));
    signal?.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason as Error)), {
      once: true,
    });
  });

/** Each fetch of a URL ending in `?limited` is refused once as rate limited (RetryLaterError). */
const limitedOnce = new Set<string>();

export const approval = approvalPipeline({
  notifyReviewer: async () => pause(1_500),
  publish: async (documentId) => (await pause(1_500), `https://docs.example/${documentId}`),
});

export const ingest = ingestPipeline({
  fetchDocument: async (url, { signal }) => {
    await pause(2_000, signal);
    if (url.endsWith('?limited') && !limitedOnce.has(url)) {
      limitedOnce.add(url);
      throw new RetryLaterError(paced(5_000), 'rate limited: try again in 5 seconds');
    }
    return `<title>${url}</title> ${'lorem ipsum dolor '.repeat(40)}`;
  },
  indexDocument: async (doc) => (await pause(2_000), `idx-${doc.words}`),
});

/** Fails twice: each attempt takes 2 s, its backoffs 3 s then 6 s (1.5 s * 2^attempt). */
const deliverWebhook = deliverWebhookJob({ attemptMs: paced(2_000), backoffMs: paced(1_500) });

/** Every definition the dev app runs (the demo's webhook job at the pace above). */
export const devJobs: AnyDefinition[] = [
  approval,
  ingest,
  splitMerge,
  countChunk,
  deliverWebhook,
  ...demoJobs.filter((j) => j.name !== deliverWebhook.name),
];

/** What the dev app enqueues at start: one of each kind of behaviour worth watching. */
export const devSeed: { machine: string; input: unknown; note: string }[] = [
  {
    machine: 'approval',
    input: { documentId: 'contract-42', deadlineMs: 3_600_000 },
    note: 'waits for an APPROVE or REJECT event: send one from its page',
  },
  {
    machine: 'splitMerge',
    input: {
      text: 'the quick brown fox jumps over the lazy dog '.repeat(60),
      chunkWords: 60,
      chunkMs: paced(3_000),
    },
    note: 'fans out 9 child jobs of 3 to 9 s each and merges their counts',
  },
  {
    machine: 'deliver-webhook',
    input: { url: 'https://hooks.example/flaky', failTimes: 2 },
    note: 'fails twice, retried after 3 s then 6 s (a countdown on its page), then succeeds',
  },
  {
    machine: 'ingest',
    input: { url: 'https://docs.example/a?limited' },
    note: 'a 3-step pipeline, rate limited once',
  },
];

/** What the dev app schedules at start (client.schedule): id, spec, and what it shows. */
export const devSchedules: {
  id: string;
  spec: { everyMs: number; machine: string; input: unknown };
  note: string;
}[] = [
  {
    id: 'demo-thumbnails',
    spec: { everyMs: 10_000, machine: 'resize-image', input: { image: 'photos/latest.jpg', width: 320 } },
    note: 'starts a resize-image job every 10 s: its next ticks and last job on the Schedules page',
  },
];
