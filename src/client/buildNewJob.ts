// One enqueue's checks and record: what Client.enqueue stores, and what a supervisor makes of an
// ingress entry (supervisor/parseIngressEntry.ts), so both refuse and store the same things.

import { ulidFactory } from '../runtime/ulids.js';
import { PRIORITY_BAND, type NewJob } from '../store/types.js';
import { serializeInput, validateOptions, type EnqueueOptions } from './validateEnqueue.js';
import { checkInput, type InputSchema } from '../runtime/checkInput.js';

const ulid = ulidFactory();

/** A new job id: a ULID (time-ordered, so ids sort by creation). */
export const newJobId = (): string => ulid();

/** What an enqueue knows of the machine: its newest version, default maxAttempts, input schema. */
export interface MachineFacts {
  version: number;
  maxAttempts: number;
  /** The definition says `record: 'minimal'` (an enqueue's `record` overrides it). */
  minimal?: boolean;
  /** The definition's input schema (that version's), when the enqueuer has the definition. */
  input?: InputSchema;
}

export interface BuiltJob {
  queue: string;
  job: NewJob;
}

/**
 * Validates `options` and `input` (ValidationError naming the field; InputSchemaError when the
 * definition's schema refuses the input) and builds the job for `Store.enqueue`.
 * The stored input is the schema's output (defaults and transforms applied): the machine then
 * gets the type its definition declares, and a transform runs once, not again at each attempt.
 * Synchronous unless the schema validates asynchronously (then a Promise).
 * `trace`, when tracing: starts the enqueue's span for the job and returns its traceparent
 * (undefined when no provider records it), which travels in the job's options (its attempts link to it).
 * `id`: the job's id when it is fixed beforehand (a fan-out child's), else a new one; the span
 * is started with the id the job is stored under.
 */
export function buildNewJob(
  machine: string,
  input: unknown,
  options: EnqueueOptions | undefined,
  info: MachineFacts,
  defaults: { queue: string; maxPayloadBytes: number },
  trace?: (queue: string, id: string) => string | undefined,
  fixedId?: string,
): BuiltJob | Promise<BuiltJob> {
  validateOptions(machine, options);
  const checked = checkInput(machine, info.input, input);
  const build = (c: { value: unknown }) => jobOf(machine, c.value, options, info, defaults, trace, fixedId);
  return checked instanceof Promise ? checked.then(build) : build(checked);
}

function jobOf(
  machine: string,
  input: unknown,
  options: EnqueueOptions | undefined,
  info: MachineFacts,
  defaults: { queue: string; maxPayloadBytes: number },
  trace?: (queue: string, id: string) => string | undefined,
  fixedId?: string,
): BuiltJob {
  const text = serializeInput(machine, input, defaults.maxPayloadBytes);
  const o = options ?? {};
  const queue = o.queue ?? defaults.queue;
  const id = fixedId ?? newJobId();
  // Per-job options, as the worker reads them (runClaimedJob: timeoutMs; the webhook
  // dispatcher: webhook; tracing: traceparent).
  const perJob: { timeoutMs?: number; webhook?: EnqueueOptions['webhook']; traceparent?: string } = {};
  if (o.timeoutMs !== undefined) perJob.timeoutMs = o.timeoutMs;
  if (o.webhook !== undefined) {
    const { url, stateUrl, secret } = o.webhook;
    perJob.webhook = { url, stateUrl, secret };
  }
  const traceparent = trace?.(queue, id);
  if (traceparent !== undefined) perJob.traceparent = traceparent;
  const job: NewJob = {
    id,
    machine,
    version: info.version,
    input: text,
    band: PRIORITY_BAND[o.priority ?? 'normal'],
    delayMs: Math.round(o.delayMs ?? 0),
    maxAttempts: o.maxAttempts ?? info.maxAttempts,
    idempotencyKey: o.idempotencyKey,
    concurrencyKey: o.concurrencyKey,
    options: Object.keys(perJob).length > 0 ? JSON.stringify(perJob) : '',
  };
  if (perJob.webhook) job.hooked = true;
  // A minimal record (docs/concepts.md): asked for, or the definition's default; never for a job
  // with webhooks (their dispatcher follows its stream entries and reads its final record) or a
  // dedupe key (released from its record as it ends). validateOptions refuses asking for both.
  // An idempotency key goes with it: it names the job's id for its TTL, after the record is gone.
  if ((o.record ?? (info.minimal ? 'minimal' : 'full')) === 'minimal' && !job.hooked && !o.dedupe)
    job.minimal = true;
  if (o.dedupe !== undefined) {
    const { key, mode = 'untilDone', ttlMs, maxDelayMs, keepLast } = o.dedupe;
    job.dedupe = { key, mode, ttlMs, maxDelayMs, keepLast };
  }
  return { queue, job };
}
