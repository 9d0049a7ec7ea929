// Parsers for option values: each refuses a bad value with a message naming the option.

import { InvalidArgumentError } from 'commander';
import { BAND_PRIORITY_NAMES, type JobStatus, type Priority } from '../store/types.js';

const STATUSES: readonly JobStatus[] = [
  'queued',
  'loading',
  'working',
  'waiting',
  'done',
  'failed',
  'cancelled',
];

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
