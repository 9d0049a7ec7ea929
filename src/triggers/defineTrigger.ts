// A declared HTTP trigger (docs/triggers.md): `POST /triggers/<name>` enqueues `machine` with the
// request's body (or `input(body, request)`) as input, after checking the sender's signature when
// `verify` says how, under a dedupe key taken from the request so that a sender's retries make one
// job. Checked whole when declared: a trigger that could not work is refused at startup, not at
// its first request.

import { ValidationError } from '../errors.js';
import { assertQueueName } from '../store/keys.js';
import type { DedupeMode, Priority } from '../store/types.js';
import { PRIORITY_BAND } from '../store/types.js';
import { secretBytes } from '../client/validateEnqueue.js';

/** What a trigger's `input` and `dedupe.key` functions see of the request. */
export interface TriggerRequest {
  /** Header names in lower case. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The raw body, exactly as received (what the signature covers). */
  rawBody: Buffer;
}

/**
 * How the sender signs: Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`;
 * secret `whsec_<base64>`), GitHub's `X-Hub-Signature-256: sha256=<hex HMAC of the body>` (any
 * header: `header`), or Stripe's `Stripe-Signature: t=<unix s>,v1=<hex HMAC of "t.body">`.
 */
export type TriggerVerify =
  | { scheme: 'standardWebhooks'; secret: string; toleranceSec?: number }
  | { scheme: 'hmacSha256'; secret: string; header?: string }
  | { scheme: 'stripe'; secret: string; toleranceSec?: number };

export interface TriggerDedupe {
  /** The request header whose value is the key (e.g. 'webhook-id', 'x-github-delivery'). */
  header?: string;
  /** Or the key from the parsed body and request (e.g. Stripe's event id: `body.id`). */
  key?: (body: unknown, request: TriggerRequest) => string | undefined;
  /** Default 'ttl' for ttlMs (default 3 days: longer than GitHub's and Stripe's retries). */
  mode?: DedupeMode;
  ttlMs?: number;
  maxDelayMs?: number;
  keepLast?: boolean;
}

export interface TriggerSpec {
  /** `POST /triggers/<name>`: 1-64 letters, digits, '.', '_', '-'. */
  name: string;
  /** The machine each request enqueues. */
  machine: string;
  queue?: string;
  priority?: Priority;
  /** The job's input from the parsed JSON body; default: the body itself. */
  input?: (body: unknown, request: TriggerRequest) => unknown;
  /**
   * The sender's signature, checked over the raw body before anything is parsed: a request
   * without a valid one is a 401 BAD_SIGNATURE. A trigger with `verify` needs no bearer token (the
   * signature is its authentication); one without needs the API's bearer token, like POST /jobs.
   */
  verify?: TriggerVerify;
  /**
   * A sender's retries make one job: the key from a header or a function, under the trigger's
   * name (`trigger:<name>:<key>`). Default with Standard Webhooks: `{ header: 'webhook-id' }`.
   * `false`: none.
   */
  dedupe?: TriggerDedupe | false;
}

/** A checked trigger, as `defineTrigger` returns it (`kind: 'trigger'`, for module loading). */
export interface TriggerDefinition extends Readonly<TriggerSpec> {
  readonly kind: 'trigger';
}

/** Longer than GitHub's (redeliveries by hand) and Stripe's (3 days) retries. */
export const DEFAULT_TRIGGER_DEDUPE_TTL_MS = 3 * 24 * 3600_000;

const NAME = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Declares an HTTP trigger (docs/triggers.md).
 * @example
 * export const github = defineTrigger({
 *   name: 'github-push', machine: 'build',
 *   verify: { scheme: 'hmacSha256', secret: process.env.GITHUB_SECRET!, header: 'x-hub-signature-256' },
 *   dedupe: { header: 'x-github-delivery' },
 *   input: (body) => ({ repo: (body as { repository: { full_name: string } }).repository.full_name }),
 * });
 */
export function defineTrigger(spec: TriggerSpec): TriggerDefinition {
  const fail = (field: string, why: string) => {
    throw new ValidationError(`trigger '${String(spec?.name)}': ${field} ${why}`, { field });
  };
  if (typeof spec !== 'object' || spec === null) throw new ValidationError('a trigger must be an object', {});
  if (typeof spec.name !== 'string' || !NAME.test(spec.name))
    fail('name', "must be 1-64 letters, digits, '.', '_' or '-'");
  if (typeof spec.machine !== 'string' || spec.machine === '') fail('machine', 'must be a machine name');
  if (spec.queue !== undefined) assertQueueName(spec.queue);
  if (spec.priority !== undefined && !(spec.priority in PRIORITY_BAND))
    fail('priority', "must be 'critical', 'high', 'normal' or 'low'");
  if (spec.input !== undefined && typeof spec.input !== 'function') fail('input', 'must be a function');
  const v = spec.verify;
  if (v !== undefined) {
    if (typeof v !== 'object' || v === null) fail('verify', 'must be an object');
    if (typeof v.secret !== 'string' || v.secret.length < 8)
      fail('verify.secret', 'must be a string of 8+ characters');
    if (v.scheme === 'standardWebhooks') {
      if (!secretBytes(v.secret))
        fail('verify.secret', "must be 'whsec_' followed by base64 (Standard Webhooks)");
    } else if (v.scheme === 'hmacSha256') {
      if (v.header !== undefined && (typeof v.header !== 'string' || v.header === ''))
        fail('verify.header', 'must be a header name');
    } else if (v.scheme !== 'stripe')
      fail('verify.scheme', "must be 'standardWebhooks', 'hmacSha256' or 'stripe'");
  }
  const d = spec.dedupe;
  if (d !== undefined && d !== false) {
    if (typeof d !== 'object' || d === null) fail('dedupe', 'must be an object or false');
    if ((d.header === undefined) === (d.key === undefined))
      fail('dedupe', 'needs a header or a key function (one)');
    if (d.header !== undefined && (typeof d.header !== 'string' || d.header === ''))
      fail('dedupe.header', 'must be a header name');
    if (d.key !== undefined && typeof d.key !== 'function') fail('dedupe.key', 'must be a function');
  }
  return Object.freeze({ ...spec, kind: 'trigger' as const });
}
