// The base of every error Machinist raises: a `code` of the registry (src/errorCodes.ts), or the
// user's own, and the ids it concerns, so callers match on codes, never on message text.

import type { ErrorCode } from '../errorCodes.js';

/**
 * A code given by the user's own work (`new NonRetryableError(message, { code })`): any string,
 * kept apart from the registry's codes so that Machinist's own code cannot make one up inline.
 */
export type UserErrorCode = string & { readonly [userCodeBrand]: true };
declare const userCodeBrand: unique symbol;

export interface ErrorIds {
  jobId?: string;
  machine?: string;
  queue?: string;
  state?: string;
  field?: string;
  /** The item of a batch it concerns (enqueueMany, POST /jobs/batch), from 0; `field` is within that item. */
  index?: number;
}

export class MachinistError extends Error {
  readonly code: ErrorCode | UserErrorCode;
  readonly jobId?: string;
  readonly machine?: string;
  readonly queue?: string;
  readonly state?: string;
  readonly field?: string;
  readonly index?: number;
  /** True when retrying the same attempt cannot help. */
  readonly nonRetryable: boolean = false;

  constructor(
    code: ErrorCode | UserErrorCode,
    message: string,
    ids: ErrorIds = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    Object.assign(this, ids);
  }
}

/**
 * `err` said of item `index` of a batch (enqueueMany): its `index` set and its message led by
 * `item <index>: `, so a caller of a whole batch learns which job was refused. An error that names
 * its item already (an inner batch's) is left as it is; anything else is returned unchanged.
 */
export function ofBatchItem(err: unknown, index: number): unknown {
  if (err instanceof MachinistError && err.index === undefined) {
    (err as { index?: number }).index = index;
    err.message = `item ${index}: ${err.message}`;
  }
  return err;
}
