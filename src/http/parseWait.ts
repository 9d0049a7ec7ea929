// `?wait=30s`: how long POST /jobs may hold the request for the job's result.

import { HttpError } from './errorReply.js';
import { CODE } from '../errorCodes.js';

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000 };

/** Milliseconds of a wait ('30s', '500ms', '2m'; a bare number is seconds), at most `maxMs`. */
export function parseWait(text: string, maxMs: number): number {
  const m = /^([0-9]+(?:\.[0-9]+)?)(ms|s|m)?$/.exec(text);
  if (!m)
    throw new HttpError(
      CODE.INVALID_INPUT,
      `wait must be a duration such as '30s' or '500ms' (got '${text}')`,
      {
        field: 'wait',
      },
    );
  const ms = Math.round(Number(m[1]) * UNIT_MS[m[2] ?? 's']!);
  if (ms > maxMs)
    throw new HttpError(CODE.INVALID_INPUT, `wait may be at most ${maxMs / 1000} s (got '${text}')`, {
      field: 'wait',
    });
  return ms;
}
