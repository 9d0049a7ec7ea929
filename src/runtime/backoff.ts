// Retry delays. The default waits 2^attempt seconds after the attempt that failed (2 s, 4 s,
// 8 s, ...), capped at an hour, optionally jittered so a burst of failures does not retry in step.
// A policy is checked when the job is defined (validateRetry); the delay is still never NaN or
// negative, since it is written to Redis as a due time.

import { DefinitionError, type StoredError } from '../errors.js';

export type BackoffPolicy =
  | { type: 'exponential'; delayMs?: number; maxDelayMs?: number; jitter?: boolean }
  | { type: 'fixed'; delayMs: number; jitter?: boolean }
  | ((attempt: number, error: StoredError) => number);

export interface RetryPolicy {
  /** Runs in all, first included. Default 4 (1 run + 3 retries). */
  maxAttempts?: number;
  backoff?: BackoffPolicy;
  /** How `RetryLaterError`s grow and how many are allowed (default: as thrown, unbounded). */
  retryLater?: RetryLaterPolicy;
}

/**
 * The n-th retry-later of a job (0-based) waits `delayMs * growth^n`, at most `maxDelayMs`; past
 * `maxRetries` of them the job fails with RetryLaterExhaustedError (RETRY_LATER_EXHAUSTED).
 * Retry-laters are counted over the job's life (its attempts share the count); a redrive of its
 * dead letter starts the count over.
 */
export interface RetryLaterPolicy {
  /** Factor each retry-later's delay is multiplied by over the one before (>= 1; default 1). */
  growth?: number;
  /** The longest a grown delay may be (ms); a delay thrown larger is kept. Default: no cap. */
  maxDelayMs?: number;
  /** How many retry-laters a job may make; the next one fails the job. Default: no bound. */
  maxRetries?: number;
}

/** The delay of a job's retry-later number `n` (0-based) that asked for `delayMs`. */
export function retryLaterDelay(policy: RetryLaterPolicy | undefined, n: number, delayMs: number): number {
  const growth = policy?.growth ?? 1;
  if (growth === 1) return delayMs;
  const grown = delayMs * growth ** n;
  const max = policy?.maxDelayMs;
  return Math.round(max !== undefined ? Math.max(delayMs, Math.min(grown, max)) : grown);
}

export const DEFAULT_MAX_ATTEMPTS = 4;
const DEFAULT_BASE_MS = 1000;
const DEFAULT_CAP_MS = 3_600_000;

/** Delay before the attempt after `attempt` (1-based) failed with `error`. */
export function backoffDelay(policy: BackoffPolicy | undefined, attempt: number, error: StoredError): number {
  if (typeof policy === 'function') {
    const d = policy(attempt, error);
    return Number.isFinite(d) && d >= 0 ? d : DEFAULT_BASE_MS;
  }
  const p = policy ?? { type: 'exponential' };
  let delay: number;
  if (p.type === 'fixed') delay = p.delayMs;
  else delay = Math.min((p.delayMs ?? DEFAULT_BASE_MS) * 2 ** attempt, p.maxDelayMs ?? DEFAULT_CAP_MS);
  if (p.jitter) delay = delay / 2 + Math.random() * (delay / 2);
  // Only a policy that bypassed validateRetry (mutated or cast) gets here with a bad number.
  return Number.isFinite(delay) && delay >= 0 ? Math.round(delay) : DEFAULT_BASE_MS;
}

export function validateRetry(retry: RetryPolicy | undefined, where: string, machine: string): void {
  if (!retry) return;
  const refuse = (field: string, problem: string) =>
    new DefinitionError(`${where}: ${field} ${problem}`, { machine, field });
  const m = retry.maxAttempts;
  if (m !== undefined && (!Number.isInteger(m) || m < 1)) {
    throw refuse('retry.maxAttempts', `must be an integer >= 1 (got ${String(m)})`);
  }
  const b = retry.backoff;
  if (b && typeof b !== 'function') {
    if (b.type !== 'exponential' && b.type !== 'fixed') {
      throw refuse('retry.backoff.type', "must be 'exponential' or 'fixed'");
    }
    // A fixed backoff has no default delay (README: `{ type: 'fixed', delayMs, jitter? }`).
    if (b.type === 'fixed' && b.delayMs === undefined) {
      throw refuse('retry.backoff.delayMs', 'is required for a fixed backoff');
    }
    if (b.delayMs !== undefined && (!Number.isFinite(b.delayMs) || b.delayMs < 0)) {
      throw refuse('retry.backoff.delayMs', 'must be a number >= 0');
    }
    const max = (b as { maxDelayMs?: unknown }).maxDelayMs;
    if (max !== undefined && (typeof max !== 'number' || !Number.isFinite(max) || max < 0)) {
      throw refuse('retry.backoff.maxDelayMs', 'must be a number >= 0');
    }
  }
  const later = retry.retryLater as Record<string, unknown> | undefined;
  if (later === undefined) return;
  if (typeof later !== 'object' || later === null)
    throw refuse('retry.retryLater', 'must be an object { growth?, maxDelayMs?, maxRetries? }');
  const { growth, maxDelayMs, maxRetries } = later;
  if (growth !== undefined && (typeof growth !== 'number' || !Number.isFinite(growth) || growth < 1))
    throw refuse('retry.retryLater.growth', `must be a number >= 1 (got ${JSON.stringify(growth)})`);
  if (
    maxDelayMs !== undefined &&
    (typeof maxDelayMs !== 'number' || !Number.isFinite(maxDelayMs) || maxDelayMs < 0)
  )
    throw refuse('retry.retryLater.maxDelayMs', `must be a number >= 0 (got ${JSON.stringify(maxDelayMs)})`);
  if (maxRetries !== undefined && (!Number.isInteger(maxRetries) || (maxRetries as number) < 0))
    throw refuse(
      'retry.retryLater.maxRetries',
      `must be an integer >= 0 (got ${JSON.stringify(maxRetries)})`,
    );
}
