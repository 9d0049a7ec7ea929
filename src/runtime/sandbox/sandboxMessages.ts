// What crosses between a job's attempt and its sandbox thread: the thread's start data, its
// messages (progress, the result, an error), the abort, and errors in a form that crosses
// (a structured clone keeps neither an error's class nor its `code` or `nonRetryable`).

import { RateLimitedError, RetryLaterError, toError } from '../../errors.js';

/** The work's arguments that cross (the signal and progress are rebuilt in the thread). */
export interface SandboxArgs {
  input: unknown;
  loaded: unknown;
  attempt: number;
  jobId: string;
  queue: string;
  idempotencyKey: string;
}

export interface SandboxStart {
  href: string;
  exportName: string | undefined;
  jobName: string;
  args: SandboxArgs;
}

export interface CrossedError {
  name: string;
  message: string;
  stack?: string;
  code?: string;
  nonRetryable?: boolean;
  delayMs?: number;
  retryAfterMs?: number;
  /** An AbortedError's reason (timeout, cancel, ...). */
  reason?: string;
}

export type FromThread =
  | { type: 'progress'; value: unknown }
  | { type: 'done'; output: unknown }
  | { type: 'error'; error: CrossedError };

export type ToThread = { type: 'abort'; reason: CrossedError };

export function crossError(thrown: unknown): CrossedError {
  const err = toError(thrown) as Error &
    Partial<Record<'code' | 'nonRetryable' | 'delayMs' | 'retryAfterMs' | 'reason', unknown>>;
  const out: CrossedError = { name: err.name, message: err.message, stack: err.stack };
  if (typeof err.code === 'string' || typeof err.code === 'number') out.code = String(err.code);
  if (err.nonRetryable === true) out.nonRetryable = true;
  if (typeof err.delayMs === 'number') out.delayMs = err.delayMs;
  if (typeof err.retryAfterMs === 'number') out.retryAfterMs = err.retryAfterMs;
  if (typeof err.reason === 'string') out.reason = err.reason;
  return out;
}

/**
 * The error again on the other side: a RetryLaterError or RateLimitedError as one (the retry
 * rules test its class).
 */
export function reviveError(e: CrossedError): Error {
  const err: Error & Partial<CrossedError> =
    e.name === 'RetryLaterError' && typeof e.delayMs === 'number'
      ? new RetryLaterError(e.delayMs, e.message)
      : e.name === 'RateLimitedError' && typeof e.retryAfterMs === 'number'
        ? new RateLimitedError(e.retryAfterMs, e.message)
        : new Error(e.message);
  err.name = e.name;
  if (e.stack !== undefined) err.stack = e.stack;
  if (e.code !== undefined) err.code = e.code;
  if (e.nonRetryable) err.nonRetryable = true;
  if (e.reason !== undefined) err.reason = e.reason;
  return err;
}
