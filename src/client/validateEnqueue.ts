// Checks an enqueue before anything is written: every refusal is a ValidationError naming the
// field, and the job it would have been.

import { MachinistError, ValidationError } from '../errors.js';
import { toStoredJson } from '../runtime/storedJson.js';
import { assertQueueName } from '../store/keys.js';
import { PRIORITY_BAND, type DedupeMode, type Priority } from '../store/types.js';
import {
  DEFAULT_MAX_PAYLOAD_BYTES,
  MAX_INPUT_DEPTH,
  jsonBytesOver,
  jsonNestsDeeper,
} from '../runtime/inputLimits.js';

/**
 * Longest delayMs: ten years. A job's run time is now + delay in ms, kept exact (a safe integer)
 * in Redis and in records; a delay of 1e300 would store a run time nothing can read back.
 */
export const MAX_DELAY_MS = 315_360_000_000;

export interface EnqueueOptions {
  queue?: string;
  priority?: Priority;
  /** Run no earlier than this many ms from now. */
  delayMs?: number;
  /**
   * A second enqueue with the same key (within the retention window) returns the first job's id.
   * On a partitioned queue the key picks the partition (unless `partitionKey` does), so it
   * dedupes there (docs/partitions.md).
   */
  idempotencyKey?: string;
  /**
   * Collapses enqueues with the same key into one job (docs/dedupe.md): `untilDone` (default)
   * returns the unfinished job's id; `ttl` makes one job per `ttlMs` window; `debounce` delays
   * the job by `ttlMs` and each later enqueue replaces its input and restarts the wait (at most
   * `maxDelayMs` after the first); `keepLast` keeps one pending job behind a started one with the
   * latest input. `idempotencyKey: k` is `dedupe: { key: k, mode: 'ttl' }` for the store's
   * idempotency TTL (under its own records): set one or the other. On a partitioned queue the key
   * picks the partition (unless `partitionKey` does: then keep the two consistent).
   * @example await client.enqueue('reindex', { doc }, { dedupe: { key: doc, mode: 'debounce', ttlMs: 2000 } })
   */
  dedupe?: DedupeOption;
  /**
   * On a partitioned queue (Client.configureQueue): jobs with the same key go to the same
   * partition, so they are claimed in order (priority, then arrival). Without it (and without
   * an idempotencyKey), jobs are spread round robin. Ignored on a queue of one partition.
   * @example await client.enqueue('charge', input, { queue: 'payments', partitionKey: customerId })
   */
  partitionKey?: string;
  /**
   * The job's concurrency key (docs/flow-control.md): while the queue has a `perKey` limit
   * (Client.setQueueLimits), at most that many jobs of one key run at once, across every
   * supervisor. On a partitioned queue the key also picks the partition (unless `partitionKey`
   * does), so every job of a key is in one partition and its limit is exact.
   * @example await client.enqueue('render', input, { concurrencyKey: 'tenant-a' })
   */
  concurrencyKey?: string;
  maxAttempts?: number;
  /** Overrides the definition's per-attempt timeout. */
  timeoutMs?: number;
  /**
   * Webhooks for this job (docs/webhooks.md): `url` receives the final record once the job is
   * done, failed or cancelled; `stateUrl` each status change. Signed (Standard Webhooks) when
   * `secret` (`whsec_<base64 of 24-64 bytes>`) is given.
   */
  webhook?: WebhookOptions;
  /**
   * What the job's record keeps, over its definition's `record` (docs/concepts.md, Minimal
   * records): `'minimal'` writes no audit log or stream entries for it and deletes the record as it
   * ends done, once its waiters have the result. Not with `webhook` or `dedupe`.
   * @example await client.enqueue('ping', {}, { record: 'minimal' })
   */
  record?: 'full' | 'minimal';
  // No parentId: a child job comes only from its parent's fanOut (Client.enqueueChildren), so
  // no caller can attach a job to another job's tree. validateOptions refuses one.
}

/** The `dedupe` enqueue option; `mode` defaults to 'untilDone'. */
export interface DedupeOption {
  key: string;
  mode?: DedupeMode;
  ttlMs?: number;
  maxDelayMs?: number;
  keepLast?: boolean;
}

const DEDUPE_FIELDS = new Set(['key', 'mode', 'ttlMs', 'maxDelayMs', 'keepLast']);

/** Refuses a dedupe option the store could not apply exactly; every message names the field. */
export function validateDedupe(machine: string, d: unknown, o: EnqueueOptions): void {
  const fail = (field: string, why: string, got: unknown) => {
    throw new ValidationError(
      `options.dedupe${field ? '.' + field : ''} ${why} (got ${JSON.stringify(got)})`,
      {
        field: field ? `dedupe.${field}` : 'dedupe',
        machine,
      },
    );
  };
  if (typeof d !== 'object' || d === null || Array.isArray(d)) return fail('', 'must be an object', d);
  const x = d as Record<string, unknown>;
  for (const k of Object.keys(x))
    if (!DEDUPE_FIELDS.has(k))
      fail(k, 'is not an option (key, mode, ttlMs, maxDelayMs and keepLast are)', x[k]);
  if (typeof x.key !== 'string' || x.key.length === 0 || x.key.length > 256)
    fail('key', 'must be a string of 1-256 characters', x.key);
  const mode = x.mode ?? 'untilDone';
  if (mode !== 'untilDone' && mode !== 'ttl' && mode !== 'debounce')
    fail('mode', "must be 'untilDone', 'ttl' or 'debounce'", x.mode);
  for (const f of ['ttlMs', 'maxDelayMs'] as const) {
    const v = x[f];
    if (v !== undefined && (!Number.isInteger(v) || (v as number) < 1 || (v as number) > MAX_DELAY_MS))
      fail(f, `must be an integer from 1 to ${MAX_DELAY_MS}`, v);
  }
  if (mode !== 'untilDone' && x.ttlMs === undefined)
    fail('ttlMs', `is required in mode '${mode as string}' (the window, or the quiet period)`, x.ttlMs);
  if (x.maxDelayMs !== undefined && mode !== 'debounce')
    fail('maxDelayMs', "is for mode 'debounce' only", x.maxDelayMs);
  if (x.keepLast !== undefined && typeof x.keepLast !== 'boolean')
    fail('keepLast', 'must be a boolean', x.keepLast);
  if (x.keepLast === true && mode === 'ttl')
    fail('keepLast', "does not apply to mode 'ttl' (its window keeps the first job)", x.keepLast);
  if (o.idempotencyKey !== undefined)
    fail('', 'and options.idempotencyKey cannot both be set (an idempotency key is the ttl mode)', d);
  if (mode === 'debounce' && o.delayMs !== undefined)
    fail('', "in mode 'debounce' sets the delay: leave options.delayMs out", d);
}

export interface WebhookOptions {
  /** Receives the final job record (as Client.get returns it) after the result is stored. */
  url?: string;
  /** Receives every status change: job id, status, state and time. */
  stateUrl?: string;
  /** Standard Webhooks secret, `whsec_<base64>`: deliveries are signed with it. */
  secret?: string;
}

export { DEFAULT_MAX_PAYLOAD_BYTES };

const MAX_URL_LENGTH = 2048;

/** Refuses a webhook option a delivery could not use; every message names the field. */
export function validateWebhook(machine: string, w: unknown): void {
  const fail = (field: string, why: string, got: unknown) => {
    throw new ValidationError(
      `options.webhook${field ? '.' + field : ''} ${why} (got ${JSON.stringify(got)})`,
      {
        field: field ? `webhook.${field}` : 'webhook',
        machine,
      },
    );
  };
  if (typeof w !== 'object' || w === null || Array.isArray(w)) fail('', 'must be an object', w);
  const o = w as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if (key !== 'url' && key !== 'stateUrl' && key !== 'secret')
      fail(key, 'is not an option (url, stateUrl and secret are)', o[key]);
  }
  if (o.url === undefined && o.stateUrl === undefined) fail('url', 'or webhook.stateUrl is required', o.url);
  for (const field of ['url', 'stateUrl'] as const) {
    const v = o[field];
    if (v === undefined) continue;
    if (typeof v !== 'string' || v.length > MAX_URL_LENGTH)
      fail(field, `must be a URL of at most ${MAX_URL_LENGTH} characters`, v);
    let url: URL;
    try {
      url = new URL(v as string);
    } catch {
      return fail(field, 'is not a valid URL', v);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      fail(field, `must be an http: or https: URL, not ${url.protocol}`, v);
    // A URL is copied into logs, events and the dashboard: a secret in it would leak there.
    // The receiver authenticates deliveries by their signature (`secret`) instead.
    if (url.username !== '' || url.password !== '') {
      fail(
        field,
        'must not carry credentials (user:password@); sign deliveries with webhook.secret instead',
        `${url.protocol}//***@${url.host}…`,
      );
    }
  }
  if (o.secret !== undefined) {
    const bytes = typeof o.secret === 'string' ? secretBytes(o.secret) : null;
    if (!bytes || bytes.length < 24 || bytes.length > 64)
      fail('secret', "must be 'whsec_' followed by the base64 of 24 to 64 random bytes", '<redacted>');
  }
}

/** The key bytes of a Standard Webhooks secret `whsec_<base64>`, or null when it is not one. */
export function secretBytes(secret: string): Buffer | null {
  if (!secret.startsWith('whsec_')) return null;
  const b64 = secret.slice('whsec_'.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || b64.length % 4 !== 0) return null;
  return Buffer.from(b64, 'base64');
}

/**
 * The stored text of a job's input (or of a sent event: `what` 'event'), in the value codec
 * (valueCodec.ts: a Date comes back a Date); a ValidationError naming the path of what it
 * cannot store (a class instance, a function, a cycle), its size or its depth past the limits.
 */
export function serializeInput(machine: string, input: unknown, maxBytes: number, what = 'input'): string {
  let text: string;
  try {
    text = toStoredJson(input === undefined ? null : input, what);
  } catch (err) {
    // The message names the path (`input.order.price`); `field` stays the argument's name.
    const why =
      err instanceof MachinistError
        ? err.message.replace(/^the job's \w+ cannot be stored as JSON: /, '')
        : String(err);
    const label = what === 'input' ? `input of '${machine}'` : machine;
    throw new ValidationError(`${label} cannot be stored: ${why}`, { field: 'input', machine });
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
    (typeof o.delayMs !== 'number' ||
      !Number.isFinite(o.delayMs) ||
      o.delayMs < 0 ||
      o.delayMs > MAX_DELAY_MS)
  )
    fail('delayMs', `must be a number from 0 to ${MAX_DELAY_MS} (ten years)`);
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
  if (
    o.partitionKey !== undefined &&
    (typeof o.partitionKey !== 'string' || o.partitionKey.length === 0 || o.partitionKey.length > 256)
  )
    fail('partitionKey', 'must be a string of 1-256 characters');
  if (
    o.concurrencyKey !== undefined &&
    (typeof o.concurrencyKey !== 'string' || o.concurrencyKey.length === 0 || o.concurrencyKey.length > 256)
  )
    fail('concurrencyKey', 'must be a string of 1-256 characters');
  if (o.webhook !== undefined) validateWebhook(machine, o.webhook);
  if (o.dedupe !== undefined) validateDedupe(machine, o.dedupe, o);
  if (o.record !== undefined && o.record !== 'full' && o.record !== 'minimal')
    fail('record', "must be 'full' or 'minimal'");
  if (o.record === 'minimal' && (o.webhook !== undefined || o.dedupe !== undefined))
    fail(
      'record',
      "'minimal' cannot go with webhook or dedupe (they need the record's stream entries and its end)",
    );
}
