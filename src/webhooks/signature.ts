// Standard Webhooks signatures (https://www.standardwebhooks.com): HMAC-SHA256 over
// `<webhook-id>.<webhook-timestamp>.<body>` with the secret's bytes, sent as `v1,<base64>`.
// Signing for the dispatcher, verifying for receivers (exported from the package).

import { createHmac, timingSafeEqual } from 'node:crypto';
import { secretBytes } from '../client/validateEnqueue.js';

/** `v1,<base64 HMAC-SHA256(id.timestamp.body)>` with a `whsec_<base64>` secret. */
export function signWebhook(secret: string, id: string, timestampSec: number, body: string): string {
  const key = secretBytes(secret);
  if (!key) throw new TypeError("webhook secret must be 'whsec_' followed by base64");
  return 'v1,' + createHmac('sha256', key).update(`${id}.${timestampSec}.${body}`).digest('base64');
}

export interface VerifyWebhookArgs {
  /** The endpoint's secret, `whsec_<base64>` (as given in the job's `webhook.secret`). */
  secret: string;
  /** The request's headers (node's IncomingHttpHeaders, a fetch Headers, or a plain record). */
  headers: Headers | Record<string, string | string[] | undefined>;
  /** The raw request body, exactly as received. */
  body: string | Buffer;
  /** Largest difference between the webhook-timestamp and now. Default 300 s. */
  toleranceSec?: number;
}

function header(headers: VerifyWebhookArgs['headers'], name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() === name) return Array.isArray(v) ? v[0] : v;
  }
  return undefined;
}

/**
 * Checks a delivery's Standard Webhooks signature and timestamp: true only when one of the
 * `webhook-signature` entries is the HMAC of `id.timestamp.body` (compared in constant time)
 * and the timestamp is within `toleranceSec` of now.
 * @example
 * if (!verifyWebhook({ secret, headers: req.headers, body: rawBody })) return res.writeHead(401).end();
 */
export function verifyWebhook({ secret, headers, body, toleranceSec = 300 }: VerifyWebhookArgs): boolean {
  const id = header(headers, 'webhook-id');
  const ts = header(headers, 'webhook-timestamp');
  const sigs = header(headers, 'webhook-signature');
  if (!id || !ts || !sigs || !/^\d{1,12}$/.test(ts)) return false;
  if (Math.abs(Date.now() / 1000 - Number(ts)) > toleranceSec) return false;
  let expected: Buffer;
  try {
    expected = Buffer.from(
      signWebhook(secret, id, Number(ts), typeof body === 'string' ? body : body.toString('utf8')).slice(3),
      'base64',
    );
  } catch {
    return false;
  }
  let ok = false;
  for (const entry of sigs.split(' ')) {
    const [version, sig] = entry.split(',');
    if (version !== 'v1' || !sig) continue;
    const got = Buffer.from(sig, 'base64');
    // Every candidate is compared (no early exit) and in constant time.
    if (got.length === expected.length && timingSafeEqual(got, expected)) ok = true;
  }
  return ok;
}
