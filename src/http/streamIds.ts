// The ids of a job stream's messages, one per message, so that a client resuming from any id
// (`Last-Event-ID`) gets exactly the messages after it. A lifecycle event's message has the id
// of its entry in the queue's event stream (`<ms>-<seq>`); a record message (`event: job`) has
// `<position>:job`: the job's record as of that position, sent after the event at that position
// (the final record follows the finishing event) or, first on a stream, as of the position the
// stream starts after.

import { HttpError } from './errorReply.js';
import { CURSOR } from './EventHub.js';
import { CODE } from '../errorCodes.js';

const RECORD_SUFFIX = ':job';

/** Where a client resumes: after the event at `cursor`, or after the record as of `cursor`. */
export interface ResumePoint {
  cursor: string;
  afterRecord: boolean;
}

export function recordId(cursor: string): string {
  return cursor + RECORD_SUFFIX;
}

/** The Last-Event-ID header, checked: undefined when absent or empty, else a message id. */
export function parseLastEventId(value: string | string[] | undefined): ResumePoint | undefined {
  if (value === undefined || value === '') return undefined;
  const afterRecord = typeof value === 'string' && value.endsWith(RECORD_SUFFIX);
  const cursor = afterRecord ? value.slice(0, -RECORD_SUFFIX.length) : value;
  if (typeof cursor !== 'string' || !CURSOR.test(cursor))
    throw new HttpError(
      CODE.INVALID_INPUT,
      `Last-Event-ID must be a message id such as '1700000000000-0' or '1700000000000-0:job'`,
      { field: 'Last-Event-ID' },
    );
  return { cursor, afterRecord };
}
