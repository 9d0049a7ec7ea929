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
}
