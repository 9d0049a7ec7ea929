// A `?wait` request's hold (POST /jobs, POST /jobs/batch): ended early when its client leaves,
// and which ends of a wait still answer 202 (the jobs are stored; they were not seen finishing).

import type { FastifyReply } from 'fastify';
import { JobNotFoundError, MachinistError, RedisUnavailableError, TimeoutError } from '../errors.js';
import { CODE } from '../errorCodes.js';

/** A `?wait` whose client disconnected (its 202 goes nowhere). */
export class ClientLeftError extends MachinistError {
  constructor() {
    super(CODE.CLIENT_LEFT, 'the client of a ?wait request disconnected');
  }
}

/**
 * A signal aborted (with a ClientLeftError) when the reply's connection closes before the reply
 * is sent: the watches on the jobs and the server's blocking read are not held for nobody until
 * the wait would have passed. `release` stops listening once the reply is made.
 */
export function whileConnected(reply: FastifyReply): { signal: AbortSignal; release(): void } {
  const left = new AbortController();
  const onClose = () => {
    if (!reply.raw.writableFinished) left.abort(new ClientLeftError());
  };
  reply.raw.once('close', onClose);
  return { signal: left.signal, release: () => reply.raw.off('close', onClose) };
}

/**
 * True for a wait's end that is a 202, not an error: not finished in time, not seen finishing
 * (the store out of reach, a kept minimal job gone already), or no client left to see it.
 */
export function notSeenFinishing(err: unknown): boolean {
  return (
    err instanceof ClientLeftError ||
    err instanceof TimeoutError ||
    err instanceof RedisUnavailableError ||
    err instanceof JobNotFoundError
  );
}
