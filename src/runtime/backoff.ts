// Retry delays. The default follows seed 001: 2^attempt seconds after the attempt that failed
// (2 s, 4 s, 8 s, ...), capped, optionally jittered so a burst of failures does not retry in step.

import type { StoredError } from '../errors.js';

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
  return Math.round(delay);
}

export function validateRetry(retry: RetryPolicy | undefined, where: string): void {
  if (!retry) return;
  const m = retry.maxAttempts;
  if (m !== undefined && (!Number.isInteger(m) || m < 1)) {
    throw new TypeError(`${where}: retry.maxAttempts must be an integer >= 1 (got ${String(m)})`);
  }
  const b = retry.backoff;
  if (b && typeof b !== 'function') {
    if (b.type !== 'exponential' && b.type !== 'fixed') {
      throw new TypeError(`${where}: retry.backoff.type must be 'exponential' or 'fixed'`);
    }
    if (b.delayMs !== undefined && (!Number.isFinite(b.delayMs) || b.delayMs < 0)) {
      throw new TypeError(`${where}: retry.backoff.delayMs must be a number >= 0`);
    }
  }
}
