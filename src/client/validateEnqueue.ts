// Checks an enqueue before anything is written: every refusal is a ValidationError naming the
// field, and the job it would have been.

import { ValidationError } from '../errors.js';
import { assertQueueName } from '../store/keys.js';
import { PRIORITY_BAND, type Priority } from '../store/types.js';
import {
  DEFAULT_MAX_PAYLOAD_BYTES,
  MAX_INPUT_DEPTH,
  jsonBytesOver,
  jsonNestsDeeper,
} from '../runtime/inputLimits.js';

export interface EnqueueOptions {
  queue?: string;
  priority?: Priority;
  /** Run no earlier than this many ms from now. */
  delayMs?: number;
  /** A second enqueue with the same key (within the retention window) returns the first job's id. */
  idempotencyKey?: string;
  maxAttempts?: number;
  /** Overrides the definition's per-attempt timeout. */
  timeoutMs?: number;
  // No parentId: a child job comes only from its parent's fanOut (Client.enqueueChildren), so
  // no caller can attach a job to another job's tree. validateOptions refuses one.
}

export { DEFAULT_MAX_PAYLOAD_BYTES };

export function serializeInput(machine: string, input: unknown, maxBytes: number): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(input === undefined ? null : input);
  } catch (err) {
    throw new ValidationError(`input of '${machine}' is not JSON-serializable: ${(err as Error).message}`, {
      field: 'input',
      machine,
    });
  }
  if (text === undefined) {
    throw new ValidationError(`input of '${machine}' is not JSON-serializable (a function or symbol)`, {
      field: 'input',
      machine,
    });
  }
  const bytes = jsonBytesOver(text, maxBytes);
  if (bytes !== null) {
    throw new ValidationError(`input of '${machine}' is ${bytes} bytes, over the ${maxBytes}-byte limit`, {
      field: 'input',
      machine,
    });
  }
  if (jsonNestsDeeper(text)) {
    throw new ValidationError(`input of '${machine}' nests deeper than ${MAX_INPUT_DEPTH} levels`, {
      field: 'input',
      machine,
    });
  }
  return text;
}

export function validateOptions(machine: string, o: EnqueueOptions | undefined): void {
  if (o === undefined) return;
  if (typeof o !== 'object' || o === null)
    throw new ValidationError('options must be an object', { field: 'options', machine });
  const fail = (field: string, why: string) => {
    throw new ValidationError(
      `options.${field} ${why} (got ${JSON.stringify((o as Record<string, unknown>)[field])})`,
      { field, machine },
    );
  };
  if ((o as { parentId?: unknown }).parentId !== undefined)
    fail('parentId', 'cannot be set: child jobs are enqueued by their parent (fanOut) only');
  if (o.queue !== undefined) assertQueueName(o.queue);
  if (o.priority !== undefined && !(o.priority in PRIORITY_BAND))
    fail('priority', "must be 'critical', 'high', 'normal' or 'low'");
  if (
    o.delayMs !== undefined &&
    (typeof o.delayMs !== 'number' || !Number.isFinite(o.delayMs) || o.delayMs < 0)
  )
    fail('delayMs', 'must be a number >= 0');
  if (
    o.maxAttempts !== undefined &&
    (!Number.isInteger(o.maxAttempts) || o.maxAttempts < 1 || o.maxAttempts > 1000)
  )
    fail('maxAttempts', 'must be an integer from 1 to 1000');
  if (
    o.timeoutMs !== undefined &&
    (typeof o.timeoutMs !== 'number' || !Number.isFinite(o.timeoutMs) || o.timeoutMs <= 0)
  )
    fail('timeoutMs', 'must be a number > 0');
  if (
    o.idempotencyKey !== undefined &&
    (typeof o.idempotencyKey !== 'string' || o.idempotencyKey.length === 0 || o.idempotencyKey.length > 256)
  )
    fail('idempotencyKey', 'must be a string of 1-256 characters');
}
