// `fromScriptError` is the one place a Lua error reply becomes an error.

import { CODE, ERROR_CODES, isErrorCode } from '../errorCodes.js';
import { type ErrorIds, MachinistError } from './MachinistError.js';
import { JobFinishedError, JobNotFoundError, LeaseLostError } from './jobCallErrors.js';

/**
 * Lua replies `error_reply('CODE detail')`; this is the one place such a reply becomes an error.
 * A code the registry marks `lua` becomes its class where it has one (JOB_NOT_FOUND,
 * JOB_FINISHED, LEASE_LOST), else a MachinistError of that code with the reply as its message
 * (as MemoryStore throws it). Anything else (not a reply of ours) is returned as it is.
 */
export function fromScriptError(err: unknown, ids: ErrorIds = {}): unknown {
  const message = err instanceof Error ? err.message : String(err);
  const m = /^(?:ERR )?([A-Z_]+) ?(.*)$/.exec(message);
  if (!m) return err;
  const [, code, detail = ''] = m;
  if (!isErrorCode(code) || !('lua' in ERROR_CODES[code])) return err;
  switch (code) {
    case CODE.JOB_NOT_FOUND:
      return new JobNotFoundError(ids.jobId ?? detail, ids.queue);
    case CODE.JOB_FINISHED:
      return new JobFinishedError(ids.jobId ?? detail, detail.split(' ')[1] ?? 'finished');
    case CODE.LEASE_LOST:
      return new LeaseLostError(ids.jobId ?? detail);
    default:
      return new MachinistError(code, message.replace(/^ERR /, ''), ids, { cause: err });
  }
}
