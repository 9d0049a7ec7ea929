// The API's one JSON body parser. Refuses, before anything reads the body: nesting deeper than
// the limit (the runtime's own input limit, inputLimits.ts, so what the API accepts a worker can
// store), and the keys `__proto__`, `constructor` and `prototype` anywhere (prototype
// pollution: no handler should have to think about them). Fastify enforces the size limit
// (413) before this runs, and answers 415 for a body that does not say it is JSON.

import type { FastifyInstance } from 'fastify';
import { jsonNestsDeeper } from '../runtime/inputLimits.js';
import { HttpError } from './errorReply.js';

const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

/** Whether the text could hold a forbidden key at all (an escaped key shows as `\u`). */
function mayHoldForbiddenKey(text: string): boolean {
  return (
    text.includes('__proto__') ||
    text.includes('constructor') ||
    text.includes('prototype') ||
    text.includes('\\u')
  );
}

/** Parses a JSON body, refusing forbidden keys and nesting deeper than `maxDepth`. */
export function parseJsonBody(text: string, maxDepth: number): unknown {
  if (text.trim() === '') return undefined;
  if (jsonNestsDeeper(text, maxDepth))
    throw new HttpError('TOO_DEEP', `the body nests arrays and objects deeper than ${maxDepth} levels`);
  try {
    if (!mayHoldForbiddenKey(text)) return JSON.parse(text);
    return JSON.parse(text, function (key, value: unknown) {
      if (FORBIDDEN.has(key))
        throw new HttpError('FORBIDDEN_KEY', `the key '${key}' is not allowed`, { field: key });
      return value;
    });
  } catch (err) {
    if (err instanceof HttpError) throw err;
    throw new HttpError('INVALID_JSON', `the body is not valid JSON: ${(err as Error).message}`);
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
      done(null, parseJsonBody(typeof body === 'string' ? body : body.toString('utf8'), maxDepth));
    } catch (err) {
      done(err as Error);
    }
  };
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parser);
  app.addContentTypeParser(/^application\/[\w.+-]+\+json$/, { parseAs: 'string' }, parser);
}
