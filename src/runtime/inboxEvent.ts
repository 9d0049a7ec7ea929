// The form of an event in a job's inbox (`inbox:<id>`, appended by send-5.lua as the client
// wrote it). A plain send stores the event itself, `{"type":"APPROVE",...}`; a send with
// delivery options stores an envelope, `{"mx":{"to":...},"event":{...}}`. The envelope has no
// top-level `type`, and every event has one, so the two never mix up: old inboxes and plain
// sends read as before, and the store needs no change to carry the options.

export type InboxEventBody = { type: string; [key: string]: unknown };

/** Delivery options of one sent event (`Client.send`). */
export interface DeliveryOptions {
  /** The id path of the child actor to deliver to, from the root: `'review'`, `'review/inner'`. */
  to?: string;
}

export interface InboxEvent extends DeliveryOptions {
  event: InboxEventBody;
}

/** What the client stores in the inbox for `event` sent with `options`. */
export function encodeInboxEvent(event: InboxEventBody, options: DeliveryOptions): unknown {
  if (options.to === undefined) return event;
  return { mx: { to: options.to }, event };
}

/** An inbox entry (parsed JSON) as an event to deliver; null when it is not one. */
export function decodeInboxEvent(value: unknown): InboxEvent | null {
  if (!value || typeof value !== 'object') return null;
  const v = value as { type?: unknown; mx?: unknown; event?: unknown };
  if (typeof v.type === 'string') return { event: v as InboxEventBody };
  const event = v.event as { type?: unknown } | undefined;
  if (!v.mx || typeof v.mx !== 'object' || typeof event?.type !== 'string') return null;
  const mx = v.mx as { to?: unknown };
  return { event: event as InboxEventBody, ...(typeof mx.to === 'string' ? { to: mx.to } : {}) };
}

/** An inbox entry as stored (JSON text); null when it is not JSON or not an event. */
export function parseInboxEvent(text: string): InboxEvent | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  return decodeInboxEvent(value);
}

/** `to`: ids separated by '/', none empty. */
export const TO_PATH = /^[^/]+(\/[^/]+)*$/;
