// The form of an event in a job's inbox (`inbox:<id>`, appended by send-5.lua as the client
// wrote it). A plain send stores the event itself, `{"type":"APPROVE",...}`; a send with
// delivery options stores an envelope, `{"mx":{"to":...,"until":"accepted","exp":...},
// "event":{...}}`. The envelope has no top-level `type`, and every event has one, so the two
// never mix up: old inboxes and plain sends read as before, and the store needs no change to
// carry the options.

import { decodeValue } from '../store/valueCodec.js';

export type InboxEventBody = { type: string; [key: string]: unknown };

/** Delivery options of one sent event (`Client.send`). */
export interface DeliveryOptions {
  /** The id path of the child actor to deliver to, from the root: `'review'`, `'review/inner'`. */
  to?: string;
  /** 'accepted': keep the event until a state takes it (or it expires), instead of dropping it. */
  until?: 'accepted';
}

export interface InboxEvent extends DeliveryOptions {
  event: InboxEventBody;
  /** When a held event is dropped (Redis ms), from the send's `ttlMs`. */
  expiresAt?: number;
}

interface Envelope {
  mx: { to?: string; until?: 'accepted'; exp?: number };
  event: InboxEventBody;
}

/** What the client stores in the inbox for `event` sent with these options. */
export function encodeInboxEvent(
  event: InboxEventBody,
  options: DeliveryOptions & { expiresAt?: number },
): InboxEventBody | Envelope {
  if (options.to === undefined && options.until === undefined) return event;
  const mx: Envelope['mx'] = {};
  if (options.to !== undefined) mx.to = options.to;
  if (options.until !== undefined) mx.until = options.until;
  if (options.expiresAt !== undefined) mx.exp = options.expiresAt;
  return { mx, event };
}

/** An inbox entry (parsed JSON) as an event to deliver; null when it is not one. */
export function decodeInboxEvent(value: unknown): InboxEvent | null {
  if (!value || typeof value !== 'object') return null;
  const v = value as { type?: unknown; mx?: unknown; event?: unknown };
  if (typeof v.type === 'string') return { event: v as InboxEventBody };
  const event = v.event as { type?: unknown } | undefined;
  if (!v.mx || typeof v.mx !== 'object' || typeof event?.type !== 'string') return null;
  const mx = v.mx as { to?: unknown; until?: unknown; exp?: unknown };
  const out: InboxEvent = { event: event as InboxEventBody };
  if (typeof mx.to === 'string') out.to = mx.to;
  if (mx.until === 'accepted') out.until = 'accepted';
  if (typeof mx.exp === 'number' && Number.isFinite(mx.exp)) out.expiresAt = mx.exp;
  return out;
}

/** An inbox entry as stored (the value codec's JSON text); null when it is not JSON or not an event. */
export function parseInboxEvent(text: string): InboxEvent | null {
  let value: unknown;
  try {
    value = decodeValue(text); // an event that holds a Date (say) is in the codec's envelope
  } catch {
    return null;
  }
  return decodeInboxEvent(value);
}

/** `to`: ids separated by '/', none empty. */
export const TO_PATH = /^[^/]+(\/[^/]+)*$/;
