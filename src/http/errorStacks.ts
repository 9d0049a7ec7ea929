// Who sees a stored error's stack. A stack names the server's files and code paths (a reader of
// the API learns the deployment's layout): it is answered to callers with a write token (the
// operators, who redrive and cancel and need the stack to fix a job) and to any caller of a
// server without auth (loopback only, `machinist dev`), or to every caller when the server is
// started with `exposeErrorStacks`. Read-only tokens get the error without its stacks.

import type { FastifyRequest } from 'fastify';
import type { StoredError } from '../errors.js';
import { requestScopes } from './auth.js';

/** The error (a StoredError, or null) without its stack and its causes' stacks. */
export function withoutStack<T extends StoredError | null | undefined>(error: T): T;
export function withoutStack(error: unknown): unknown;
export function withoutStack(error: unknown): unknown {
  if (error === null || typeof error !== 'object' || Array.isArray(error)) return error;
  const { stack: _stack, cause, ...rest } = error as StoredError;
  return cause === undefined ? rest : { ...rest, cause: withoutStack(cause) };
}

/** Decides per request whether stacks are shown. */
export function stackPolicy(options: {
  expose: boolean;
  auth: boolean;
}): (request: FastifyRequest) => boolean {
  if (options.expose || !options.auth) return () => true;
  return (request) => requestScopes(request)?.has('write') === true;
}
