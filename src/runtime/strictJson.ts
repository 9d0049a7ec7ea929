// JSON text read from outside (an HTTP body, an ingress entry) as exactly what it says, or
// refused with the reason. JSON.parse alone would quietly change things: bytes that are not
// UTF-8 decode, loosely, to U+FFFD; a number past the double range (1e400) parses as Infinity,
// which every later JSON.stringify writes as null. And it would hand on keys no handler should
// have to think about (`__proto__`, `constructor`, `prototype`: prototype pollution), and
// nesting deeper than a job's input may be (inputLimits.ts).

import { TextDecoder } from 'node:util';
import { jsonNestsDeeper } from './inputLimits.js';
import { CODE, type ErrorCode } from '../errorCodes.js';
import { MachinistError } from '../errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

export type StrictJsonProblem = Extract<
  ErrorCode,
  'NOT_UTF8' | 'TOO_DEEP' | 'FORBIDDEN_KEY' | 'HUGE_NUMBER' | 'INVALID_JSON'
>;

/** Why a text was refused; `key` names a forbidden key. */
export class StrictJsonError extends MachinistError {
  constructor(
    readonly problem: StrictJsonProblem,
    message: string,
    readonly key?: string,
  ) {
    super(problem, message, key === undefined ? {} : { field: key });
  }
}

/** Whether the text could hold a forbidden key at all (an escaped key shows as `\u`). */
function mayHoldForbiddenKey(text: string): boolean {
  return (
    text.includes('__proto__') ||
    text.includes('constructor') ||
    text.includes('prototype') ||
    text.includes('\\u')
  );
}

/**
 * Whether the text could hold a number past the double range: an exponent of three digits or a
 * run of 309 digits (strings that only look so cost a slower parse, nothing else).
 */
function mayHoldHugeNumber(text: string): boolean {
  return /[eE][+-]?\d{3}|\d{309}/.test(text);
}

/** The bytes (or text) parsed as JSON, or StrictJsonError naming what is wrong. */
export function parseStrictJson(input: Uint8Array | string, maxDepth: number): unknown {
  let text: string;
  try {
    text = typeof input === 'string' ? input : utf8.decode(input);
  } catch {
    throw new StrictJsonError(CODE.NOT_UTF8, 'the text is not UTF-8');
  }
  if (jsonNestsDeeper(text, maxDepth))
    throw new StrictJsonError(CODE.TOO_DEEP, `arrays and objects nest deeper than ${maxDepth} levels`);
  try {
    if (!mayHoldForbiddenKey(text) && !mayHoldHugeNumber(text)) return JSON.parse(text);
    return JSON.parse(text, function (key, value: unknown) {
      if (FORBIDDEN.has(key))
        throw new StrictJsonError(CODE.FORBIDDEN_KEY, `the key '${key}' is not allowed`, key);
      if (typeof value === 'number' && !Number.isFinite(value))
        throw new StrictJsonError(
          CODE.HUGE_NUMBER,
          'a number is past the double range (it would be stored as null)',
        );
      return value;
    });
  } catch (err) {
    if (err instanceof StrictJsonError) throw err;
    throw new StrictJsonError(CODE.INVALID_JSON, `not valid JSON: ${(err as Error).message}`);
  }
}
