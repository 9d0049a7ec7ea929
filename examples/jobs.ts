// Example jobs for the demo (and a starting point for your own): `machinist worker --jobs
// dist/examples/jobs.js` runs them too. Each shows one part of the job contract.

import { setTimeout as sleep } from 'node:timers/promises';
import { defineJob, NonRetryableError } from '../src/index.js';

export interface ResizeInput {
  image: string;
  width: number;
}
interface SourceImage {
  bytes: number;
  width: number;
  height: number;
}
export interface ResizeOutput {
  path: string;
  width: number;
  height: number;
}

/** A load phase (fetch the source), then work in steps that report progress. */
export const resizeImage = defineJob<ResizeInput, ResizeOutput, SourceImage>({
  name: 'resize-image',
  // Stand-in for downloading the original: passing `signal` lets cancel and shutdown interrupt it.
  load: async ({ input, signal }) => {
    await sleep(60, undefined, { signal });
    return { bytes: 1_000_000 + input.image.length * 10_000, width: 4000, height: 3000 };
  },
  work: async ({ input, loaded, progress, signal }) => {
    const steps = ['decode', 'scale', 'sharpen', 'encode'];
    for (const [i, step] of steps.entries()) {
      await sleep(50, undefined, { signal });
      progress({ step, done: i + 1, of: steps.length });
    }
    const height = Math.round((loaded.height * input.width) / loaded.width);
    return { path: input.image.replace(/(\.\w+)$/, `-${input.width}w$1`), width: input.width, height };
  },
  retry: { maxAttempts: 3 },
  timeoutMs: 10_000,
});

export interface WebhookInput {
  url: string;
  /** How many deliveries the (simulated) receiver refuses before it accepts one. */
  failTimes: number;
}

/**
 * Fails its first `failTimes` attempts the way a flaky receiver does, then succeeds. The
 * attempt number is durable, so a retry after a crash counts on from where it was. Made by a
 * function so that `machinist dev` runs it at a pace a person can watch (machines/demo.ts): each
 * attempt takes `attemptMs`, the backoff is `backoffMs * 2^attempt` (at most 10 times that).
 */
export function deliverWebhookJob(pace: { attemptMs: number; backoffMs: number }) {
  return defineJob<WebhookInput, { status: number; attempt: number }>({
    name: 'deliver-webhook',
    work: async ({ input, attempt, signal }) => {
      await sleep(pace.attemptMs, undefined, { signal });
      if (attempt <= input.failTimes) {
        throw Object.assign(new Error(`POST ${input.url} answered 503 Service Unavailable`), {
          code: 'HTTP_503',
        });
      }
      return { status: 200, attempt };
    },
    retry: {
      maxAttempts: 5,
      backoff: { type: 'exponential', delayMs: pace.backoffMs, maxDelayMs: pace.backoffMs * 10 },
    },
  });
}

// Short delays so the demo finishes quickly: 200 ms, then 400 ms, ... (delayMs * 2^attempt).
export const deliverWebhook = deliverWebhookJob({ attemptMs: 20, backoffMs: 100 });

export interface ChargeInput {
  customer: string;
  card: string;
  cents: number;
}

/** A declined card will be declined again: NonRetryableError fails the job at the first throw. */
export const chargeCard = defineJob<ChargeInput, { chargeId: string; cents: number }>({
  name: 'charge-card',
  work: async ({ input, jobId, idempotencyKey }) => {
    await sleep(30);
    if (input.card.endsWith('0002')) {
      throw new NonRetryableError(`card ending ${input.card.slice(-4)} was declined`, {
        code: 'CARD_DECLINED',
      });
    }
    // A real payment API would be handed `idempotencyKey` (the same when this attempt re-runs
    // after a crash), so a worker that dies mid-call cannot charge the card twice.
    void idempotencyKey;
    return { chargeId: `ch_${jobId.slice(-10).toLowerCase()}`, cents: input.cents };
  },
});

export interface EmailInput {
  to: string;
  template: string;
}

export const sendEmail = defineJob<EmailInput, { messageId: string }>({
  name: 'send-email',
  work: async ({ input, jobId }) => {
    await sleep(20);
    return { messageId: `<${jobId}@${input.to.split('@')[1] ?? 'example.com'}>` };
  },
});

export default [resizeImage, deliverWebhook, chargeCard, sendEmail];
