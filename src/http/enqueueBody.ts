// The body of one job as POST /jobs takes it (and each job of POST /jobs/batch, and each line of
// `machinist enqueue --batch`): the machine, its input, and the enqueue options, webhooks flat.
// One mapping to the Client's enqueue arguments, so every way in reads a job the same way.

import type { EnqueueOptions } from '../client/validateEnqueue.js';
import { ValidationError } from '../errors.js';
import { enqueueBody } from './schemas.js';

export interface EnqueueBody extends Omit<EnqueueOptions, 'webhook'> {
  machine: string;
  input?: unknown;
  webhookUrl?: string;
  stateWebhookUrl?: string;
  webhookSecret?: string;
}

/** One job's enqueue arguments, as the Client takes them (an EnqueueItem of enqueueMany). */
export interface EnqueueArgs {
  machine: string;
  input: unknown;
  options: EnqueueOptions;
}

/** The body's job: its flat webhook fields become the enqueue's webhook option (checked by the Client). */
export function enqueueArgsOf(body: EnqueueBody): EnqueueArgs {
  const { machine, input, webhookUrl, stateWebhookUrl, webhookSecret, ...fields } = body;
  const options: EnqueueOptions = fields;
  if (webhookUrl !== undefined || stateWebhookUrl !== undefined || webhookSecret !== undefined)
    options.webhook = { url: webhookUrl, stateUrl: stateWebhookUrl, secret: webhookSecret };
  return { machine, input, options };
}

const FIELDS = new Set(Object.keys(enqueueBody.properties));

/**
 * `value` as a job body, for a caller that has no schema validator in front of it (the CLI's
 * store path): an object whose fields are the schema's (`enqueueBody`), with a `machine`. The
 * values are the Client's to check, as for every enqueue.
 */
export function asEnqueueBody(value: unknown): EnqueueBody {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new ValidationError('a job must be an object: { "machine": ..., "input": ..., options }');
  for (const k of Object.keys(value))
    if (!FIELDS.has(k)) throw new ValidationError(`field '${k}' is not a known field`, { field: k });
  if (typeof (value as { machine?: unknown }).machine !== 'string')
    throw new ValidationError("field 'machine' must be a string", { field: 'machine' });
  return value as EnqueueBody;
}
