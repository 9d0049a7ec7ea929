// What a job's event tells its receivers: a `job.status` message on its state-hook chain when its
// status changed, and a `job.finished` message (its record) on its final-hook chain when it ended.

import { wireRecord } from '../store/valueCodec.js';
import { FINISHED, type QueueEvent } from '../store/types.js';
import type { HookMessage, HookSchedule, HookedJob } from '../store/HookStore.js';
import { hookChain } from '../store/hookWrites.js';

/** What messagesFor needs of the dispatcher. */
export interface MessageSource {
  queue: string;
  /** The job's record as Client.get returns it (the final hook's data), or null. */
  getRecord: (id: string) => Promise<unknown>;
}

/** Adds to `s` the messages event `e` of job `id` (with hooks `j`) makes, and marks it finished. */
export async function messagesFor(
  src: MessageSource,
  id: string,
  e: QueueEvent,
  j: HookedJob,
  s: HookSchedule,
): Promise<void> {
  const status = e.status;
  if (!status || e.type === 'cancel-requested') return;
  const now = Date.now();
  const { url, stateUrl, secret } = j.webhook;
  const prev = s.last.get(id) ?? j.last;
  if (status !== prev) {
    s.last.set(id, status);
    if (stateUrl && !j.off.s) {
      let state: unknown = null;
      // The state read now belongs to this event only if the job is still in its status.
      if (j.status === status && j.state) state = parseOr(j.state, null);
      const data = { jobId: id, queue: src.queue, status, state, at: e.at };
      s.messages.push({
        chain: hookChain(id, 's'),
        message: message(`msg_${id}_${e.cursor}_s`, stateUrl, secret, 'job.status', data, now),
      });
    }
  }
  if (FINISHED.has(status)) {
    s.finished.push(id);
    if (url && !j.off.f) {
      const got = await src.getRecord(id);
      // As the HTTP API shows it: a Date (say) in the value codec's envelope, not its toJSON.
      const record = got && typeof got === 'object' ? wireRecord(got) : got;
      if (record) {
        s.messages.push({
          chain: hookChain(id, 'f'),
          message: message(`msg_${id}_${e.cursor}_f`, url, secret, 'job.finished', record, now),
        });
      }
    }
  }
}

function message(
  id: string,
  url: string,
  secret: string | undefined,
  type: string,
  data: unknown,
  now: number,
): HookMessage {
  const body = JSON.stringify({ type, timestamp: new Date(now).toISOString(), data });
  return secret ? { id, url, secret, body, first: now, tries: 0 } : { id, url, body, first: now, tries: 0 };
}

function parseOr(text: string, fallback: unknown): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return fallback;
  }
}
