// Parsers for option values: each refuses a bad value with a message naming the option.

import { InvalidArgumentError } from 'commander';
import { BAND_PRIORITY_NAMES, type JobStatus, type Priority } from '../store/types.js';
import { JOB_STATUSES } from '../store/jobStatus.js';

const STATUSES: readonly JobStatus[] = JOB_STATUSES;

/** A whole number >= `min`. */
export function integer(min = 0): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min) {
      throw new InvalidArgumentError(`expected a whole number >= ${min}, got '${value}'.`);
    }
    return n;
  };
}

export function priority(value: string): Priority {
  if (!(BAND_PRIORITY_NAMES as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`expected one of ${BAND_PRIORITY_NAMES.join(', ')}, got '${value}'.`);
  }
  return value as Priority;
}

export function status(value: string): JobStatus {
  if (!(STATUSES as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`expected one of ${STATUSES.join(', ')}, got '${value}'.`);
  }
  return value as JobStatus;
}

/** A time: ms since epoch (all digits) or an ISO 8601 text; as ms. */
export function timeMs(value: string): number {
  const ms = /^\d+$/.test(value.trim()) ? Number(value) : Date.parse(value);
  if (!Number.isSafeInteger(ms) || ms < 0)
    throw new InvalidArgumentError(`expected ms since epoch or an ISO 8601 time, got '${value}'.`);
  return ms;
}
