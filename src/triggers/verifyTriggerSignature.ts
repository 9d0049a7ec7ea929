// The signature checks a trigger may ask for (defineTrigger's `verify`), over the raw body: the
// Standard Webhooks one is the package's own (webhooks/signature.ts, which signs outgoing
// webhooks); GitHub's and Stripe's are a shared-secret HMAC-SHA256 in hex. Every comparison is in
// constant time.

import { createHmac, timingSafeEqual } from 'node:crypto';
import { verifyWebhook } from '../webhooks/signature.js';
import type { TriggerRequest, TriggerVerify } from './defineTrigger.js';

const header = (r: TriggerRequest, name: string): string | undefined => {
  const v = r.headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
};

/** Equal hex digests, in constant time (false for anything that is not one). */
function sameHex(got: string, expected: string): boolean {
  if (!/^[0-9a-f]+$/i.test(got) || got.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(got.toLowerCase(), 'hex'), Buffer.from(expected, 'hex'));
}

/** null when the request carries a valid signature, else why not (told to the caller). */
export function verifyTriggerSignature(
  v: TriggerVerify,
  r: TriggerRequest,
  nowMs = Date.now(),
): string | null {
  if (v.scheme === 'standardWebhooks') {
    if (!header(r, 'webhook-signature')) return 'the webhook-signature header is missing';
    return verifyWebhook({
      secret: v.secret,
      headers: r.headers,
      body: r.rawBody,
      toleranceSec: v.toleranceSec,
    })
      ? null
      : 'the webhook-signature does not match, or webhook-timestamp is too far from now';
  }
  if (v.scheme === 'hmacSha256') {
    const name = v.header ?? 'x-hub-signature-256';
    const sent = header(r, name);
    if (!sent) return `the ${name} header is missing`;
    const expected = createHmac('sha256', v.secret).update(r.rawBody).digest('hex');
    const got = sent.startsWith('sha256=') ? sent.slice(7) : sent;
    return sameHex(got, expected) ? null : `the ${name} signature does not match`;
  }
  // Stripe: t=<unix s>,v1=<hex>[,v1=<hex>...]; the signed payload is "<t>.<body>".
  const sent = header(r, 'stripe-signature');
  if (!sent) return 'the stripe-signature header is missing';
  let t: string | undefined;
  const v1: string[] = [];
  for (const part of sent.split(',')) {
    const [k, val] = part.split('=', 2);
    if (k?.trim() === 't') t = val;
    else if (k?.trim() === 'v1' && val) v1.push(val.trim());
  }
  if (!t || !/^\d{1,12}$/.test(t) || v1.length === 0) return 'the stripe-signature header is malformed';
  if (Math.abs(nowMs / 1000 - Number(t)) > (v.toleranceSec ?? 300))
    return 'the stripe-signature timestamp is too far from now';
  const expected = createHmac('sha256', v.secret).update(`${t}.`).update(r.rawBody).digest('hex');
  let ok = false;
  // Every candidate is compared (no early exit).
  for (const s of v1) if (sameHex(s, expected)) ok = true;
  return ok ? null : 'the stripe-signature does not match';
}
