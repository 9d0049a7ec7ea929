// The API's one JSON body parser: the body read as bytes and parsed strictly
// (runtime/strictJson.ts), so it refuses, before anything reads the body: bytes that are not
// UTF-8, numbers past the double range, nesting deeper than the limit (the runtime's own input
// limit, inputLimits.ts, so what the API accepts a worker can store), and the keys `__proto__`,
// `constructor` and `prototype` anywhere (prototype pollution: no handler should have to think
// about them). Fastify enforces the size limit (413) before this runs, and answers 415 for a
// body that does not say it is JSON.

import type { FastifyInstance } from 'fastify';
import { parseStrictJson, StrictJsonError } from '../runtime/strictJson.js';
import { HttpError } from './errorReply.js';
import { CODE } from '../errorCodes.js';

/** Parses a JSON body, refusing what parseStrictJson refuses, each as a 400 naming it. */
export function parseJsonBody(body: string | Uint8Array, maxDepth: number): unknown {
  if (typeof body === 'string' ? body.trim() === '' : body.length === 0) return undefined;
  try {
    return parseStrictJson(body, maxDepth);
  } catch (err) {
    if (!(err instanceof StrictJsonError)) throw err;
    if (err.problem === CODE.TOO_DEEP)
      throw new HttpError(CODE.TOO_DEEP, `the body nests arrays and objects deeper than ${maxDepth} levels`);
    if (err.problem === CODE.FORBIDDEN_KEY)
      throw new HttpError(CODE.FORBIDDEN_KEY, err.message, { field: err.key });
    throw new HttpError(CODE.INVALID_JSON, `the body is not valid JSON: ${err.message}`);
  }
}

/** Replaces Fastify's JSON parser with parseJsonBody for application/json and any `+json` type. */
export function installJsonBody(app: FastifyInstance, maxDepth: number): void {
  // Fastify parses text/plain by default: the API takes JSON only, so anything else is 415.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  const parser = (
    _req: unknown,
    body: string | Buffer,
    done: (err: Error | null, value?: unknown) => void,
  ) => {
    try {
      done(null, parseJsonBody(body, maxDepth));
    } catch (err) {
      done(err as Error);
    }
  };
  // As bytes: decoded strictly, not to U+FFFD.
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, parser);
  app.addContentTypeParser(/^application\/[\w.+-]+\+json$/, { parseAs: 'buffer' }, parser);
}
