// What a send must be, checked before anything is read or written: the event, its id, and its
// delivery options (`to` a child actor, held `until` accepted for `ttlMs`), the field named when
// one is wrong.

import { ValidationError } from '../errors.js';
import { TO_PATH, type DeliveryOptions } from '../runtime/inboxEvent.js';

export interface SendOptions extends DeliveryOptions {
  queue?: string;
  /** Makes the send idempotent: an event id is delivered once (default: a fresh ULID). */
  eventId?: string;
  /** With `until: 'accepted'`: drop the event if no state took it within this many ms. */
  ttlMs?: number;
}

const MAX_TO_LENGTH = 1000;
/** The longest a held event may wait: a timer's range (~24.8 days). */
const MAX_TTL_MS = 2 ** 31 - 1;

/** The delivery options of a send, checked; the field named when one is wrong. */
function validateDelivery(jobId: string, options: SendOptions): DeliveryOptions {
  const out: DeliveryOptions = {};
  if (options.to !== undefined) {
    if (typeof options.to !== 'string' || options.to.length > MAX_TO_LENGTH || !TO_PATH.test(options.to))
      throw new ValidationError(
        "to must be the id path of a child actor: ids separated by '/', e.g. 'review/signature'",
        { field: 'to', jobId },
      );
    out.to = options.to;
  }
  if (options.until !== undefined) {
    if (options.until !== 'accepted')
      throw new ValidationError("until must be 'accepted'", { field: 'until', jobId });
    out.until = 'accepted';
  }
  if (options.ttlMs !== undefined) {
    if (out.until === undefined)
      throw new ValidationError("ttlMs applies to until: 'accepted' only", { field: 'ttlMs', jobId });
    if (!Number.isInteger(options.ttlMs) || options.ttlMs < 1 || options.ttlMs > MAX_TTL_MS)
      throw new ValidationError(`ttlMs must be a whole number of ms from 1 to ${MAX_TTL_MS}`, {
        field: 'ttlMs',
        jobId,
      });
  }
  return out;
}

/** Checks a send's event and options; returns its delivery options. */
export function validateSend(
  id: string,
  event: { type: string; [key: string]: unknown },
  options: SendOptions,
): DeliveryOptions {
  if (!event || typeof event !== 'object' || typeof event.type !== 'string' || event.type.length === 0) {
    throw new ValidationError('event must be an object with a non-empty string `type`', {
      field: 'event',
      jobId: id,
    });
  }
  if (event.type.startsWith('xstate.')) {
    throw new ValidationError(`event type '${event.type}' is reserved by XState`, {
      field: 'event.type',
      jobId: id,
    });
  }
  if (
    options.eventId !== undefined &&
    (typeof options.eventId !== 'string' || !/^[\w.:-]{1,128}$/.test(options.eventId))
  )
    throw new ValidationError('eventId must be 1-128 letters, digits, _ . : -', {
      field: 'eventId',
      jobId: id,
    });
  return validateDelivery(id, options);
}
