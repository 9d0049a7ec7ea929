// What a job's work throws to steer its attempt (fail at once, retry later), and how an attempt
// ends when that steering runs out or its sandboxed thread gives no answer.

import { CODE } from '../errorCodes.js';
import { type ErrorIds, MachinistError, type UserErrorCode } from './MachinistError.js';
import { toError } from './storedError.js';

/** Thrown by work: fail the job at once, whatever attempts remain. */
export class NonRetryableError extends MachinistError {
  override readonly nonRetryable = true;
  constructor(message: string, options?: { code?: string; cause?: unknown }) {
    super((options?.code as UserErrorCode | undefined) ?? CODE.NON_RETRYABLE, message, {}, options);
  }
}

/** Thrown by work: requeue after `delayMs` without using up an attempt (e.g. a rate limit). */
export class RetryLaterError extends MachinistError {
  readonly delayMs: number;
  constructor(delayMs: number, message = `retry later in ${delayMs} ms`) {
    super(CODE.RETRY_LATER, message);
    if (!Number.isFinite(delayMs) || delayMs < 0)
      throw new TypeError('RetryLaterError: delayMs must be >= 0');
    this.delayMs = delayMs;
  }
}

/**
 * Thrown by work that hit a limit of something it calls (e.g. an HTTP 429 with Retry-After): the
 * job goes back to waiting, due after `retryAfterMs`, without using an attempt (it is not a
 * failure, and it is not counted as a retry-later), AND the whole queue holds back its starts
 * for `retryAfterMs` (its throttle's state is pushed forward in the same atomic write), so the
 * other jobs of the queue do not hit the same limit meanwhile (docs/flow-control.md).
 */
export class RateLimitedError extends MachinistError {
  readonly retryAfterMs: number;
  constructor(retryAfterMs: number, message = `rate limited: retry after ${retryAfterMs} ms`) {
    super(CODE.RATE_LIMITED, message);
    if (!Number.isFinite(retryAfterMs) || retryAfterMs < 0)
      throw new TypeError('RateLimitedError: retryAfterMs must be a finite number >= 0');
    this.retryAfterMs = Math.round(retryAfterMs);
  }
}

/**
 * The job's work asked to retry later (RetryLaterError) more often than its definition's
 * `retry.retryLater.maxRetries` allows: the job fails at once (a dead letter), the last
 * RetryLaterError as its `cause`. Like an unreachable target given up on after so many tries.
 */
export class RetryLaterExhaustedError extends MachinistError {
  override readonly nonRetryable = true;
  readonly retryLaters: number;
  constructor(retryLaters: number, maxRetries: number, ids: ErrorIds, cause: unknown) {
    super(
      CODE.RETRY_LATER_EXHAUSTED,
      `asked to retry later ${retryLaters} times (at most ${maxRetries}): ${toError(cause).message}`,
      ids,
      { cause },
    );
    this.retryLaters = retryLaters;
  }
}

/**
 * A sandboxed job's thread (defineJob `sandbox`) ended without an answer: SANDBOX_EXITED (it
 * exited, e.g. `process.exit` in the job's code), or its work could not be found: SANDBOX_LOAD
 * (the module has no such export, or it is not a function or a job definition; not retried).
 */
export class SandboxError extends MachinistError {
  override readonly nonRetryable: boolean;
  constructor(
    code: typeof CODE.SANDBOX_EXITED | typeof CODE.SANDBOX_LOAD,
    message: string,
    ids: ErrorIds = {},
  ) {
    super(code, message, ids);
    this.nonRetryable = code === CODE.SANDBOX_LOAD;
  }
}
