// How an attempt that did not succeed ends, for simple jobs and pipelines alike. The order of
// the checks matters: a lost lease wins over everything (the job is someone else's now).

import {
  NonRetryableError,
  RateLimitedError,
  RetryLaterError,
  RetryLaterExhaustedError,
  toStoredError,
  type StoredError,
} from '../errors.js';
import { backoffDelay, retryLaterDelay, type RetryPolicy } from './backoff.js';
import { failureMove } from './lifecycle.js';
import type { LifecycleSnapshot } from '../../machines/job.js';
import type { ActiveJob } from './ActiveJob.js';
import { CODE } from '../errorCodes.js';

export interface SettleOptions {
  retry: RetryPolicy | undefined;
  timeoutMs: number;
  /** The machine's snapshot (JSON text) to store beside the lifecycle's (pipelines). */
  machineJson?: string;
  /** Snapshot to resume from on a retry (pipelines); without it the last checkpoint stands. */
  resumeSnapshot?: string;
  state?: string;
  /** Audit entries of the run not yet written (a pipeline's states and events): logged first. */
  log?: readonly string[];
}

export async function settleFailure(
  job: ActiveJob,
  life: LifecycleSnapshot,
  failure: unknown,
  options: SettleOptions,
): Promise<void> {
  let thrown = failure;
  job.end();
  const base = { id: job.id, token: job.token };
  const before = options.log ?? [];
  switch (job.abortReason) {
    case 'lease-lost':
      return; // THE FENCE: this worker MUST NOT write the job again.
    case 'shutdown':
      await job.write({
        ...base,
        kind: 'requeue',
        log: [...before, '{"type":"requeued","reason":"shutdown"}'],
      });
      return;
    case 'cancel': {
      await job.write({
        ...base,
        kind: 'cancelled',
        snapshot: storedSnapshot(options.machineJson),
        state: options.state,
        log: [...before, '{"type":"cancelled","reason":"cancel requested while running"}'],
      });
      return;
    }
    default:
      break;
  }
  if (thrown instanceof RateLimitedError) {
    // Not a failure and not a retry-later: no attempt used, nothing counted. The job is due
    // after retryAfterMs and its queue's starts are held as long, in the same write (holdMs).
    const { retryAfterMs } = thrown;
    await job.write({
      ...base,
      kind: 'retry',
      error: JSON.stringify(toStoredError(thrown)),
      delayMs: retryAfterMs,
      holdMs: retryAfterMs,
      attempt: life.context.attempt,
      snapshot: options.resumeSnapshot,
      log: [...before, JSON.stringify({ type: 'rate-limited', retryAfterMs, attempt: life.context.attempt })],
    });
    return;
  }
  if (thrown instanceof RetryLaterError) {
    // Counted over the job's life (the store keeps the count): `retry.retryLater` grows the
    // delay with it and bounds it.
    const policy = options.retry?.retryLater;
    const n = job.claimed.retryLaters;
    if (policy?.maxRetries !== undefined && n >= policy.maxRetries) {
      const ids = { jobId: job.id, machine: job.claimed.machine };
      thrown = new RetryLaterExhaustedError(n + 1, policy.maxRetries, ids, thrown);
    } else {
      const delayMs = retryLaterDelay(policy, n, thrown.delayMs);
      await job.write({
        ...base,
        kind: 'retry',
        error: JSON.stringify(toStoredError(thrown)),
        delayMs,
        attempt: life.context.attempt,
        snapshot: options.resumeSnapshot,
        retryLaters: n + 1,
        log: [
          ...before,
          JSON.stringify({ type: 'retry-later', delayMs, attempt: life.context.attempt, retryLaters: n + 1 }),
        ],
      });
      return;
    }
  }
  const error: StoredError =
    job.abortReason === 'timeout'
      ? {
          name: 'TimeoutError',
          code: CODE.TIMEOUT,
          message: `attempt ${life.context.attempt} timed out after ${options.timeoutMs} ms`,
        }
      : job.abortReason === 'stalled'
        ? {
            name: 'StalledError',
            code: CODE.STALLED,
            message: `attempt ${life.context.attempt} reported no progress for ${job.stallMs} ms`,
          }
        : toStoredError(thrown);
  const final =
    thrown instanceof NonRetryableError || (thrown as { nonRetryable?: unknown })?.nonRetryable === true;
  const next = failureMove(life, final);
  const brief = { name: error.name, message: error.message, code: error.code };
  if (next.state === 'queued') {
    const delayMs = backoffDelay(options.retry?.backoff, life.context.attempt, error);
    await job.write({
      ...base,
      kind: 'retry',
      error: JSON.stringify(error),
      delayMs,
      attempt: next.attempt,
      snapshot: options.resumeSnapshot,
      log: [
        ...before,
        JSON.stringify({ type: 'retry-scheduled', attempt: next.attempt, delayMs, error: brief }),
      ],
    });
  } else {
    await job.write({
      ...base,
      kind: 'fail',
      error: JSON.stringify(error),
      snapshot: storedSnapshot(options.machineJson),
      state: options.state,
      resume: options.resumeSnapshot,
      log: [...before, JSON.stringify({ type: 'failed', attempts: life.context.attempt, error: brief })],
    });
  }
}

/**
 * `{w?}`: the machine's snapshot when there is one. The lifecycle is not stored: the record's
 * status, attempt and error say it (store/lifecycleView.ts). `{}` without a machine: the write
 * replaces what the last checkpoint stored, which a job that ends here must not keep.
 */
function storedSnapshot(machineJson: string | undefined): string {
  return machineJson === undefined ? '{}' : `{"w":${machineJson}}`;
}
