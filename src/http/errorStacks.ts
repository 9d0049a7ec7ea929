// Who sees a stored error's stack. A stack names the server's files and code paths (a reader of
// the API learns the deployment's layout): it is answered to callers with a write token (the
// operators, who redrive and cancel and need the stack to fix a job) and to any caller of a
// server without auth (loopback only, `machinist dev`), or to every caller when the server is
// started with `exposeErrorStacks`. Read-only tokens get the error without its stacks
// (`withoutStack`, in src/client/recordView.ts beside the record view the dashboard shares).

import type { FastifyRequest } from 'fastify';
import { requestScopes } from './auth.js';

/** Decides per request whether stacks are shown. */
export function stackPolicy(options: {
  expose: boolean;
  auth: boolean;
}): (request: FastifyRequest) => boolean {
  if (options.expose || !options.auth) return () => true;
  return (request) => requestScopes(request)?.has('write') === true;
}
