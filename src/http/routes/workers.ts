// GET /workers: the fleet (roles/Fleet.ts): every supervisor seen in the last hour, live, stopped
// or gone (stopped heartbeating), with its facts, what it runs now, and the jobs the reaper took
// back from it.

import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../ApiContext.js';
import { HttpError } from '../errorReply.js';
import { bearerSecurity, errorReplies } from '../schemas.js';
import { hasFleet } from '../../store/types.js';
import { CODE } from '../../errorCodes.js';

const jobRef = {
  type: 'object',
  required: ['id', 'queue'],
  properties: { id: { type: 'string' }, queue: { type: 'string' }, machine: { type: ['string', 'null'] } },
} as const;

const worker = {
  type: 'object',
  required: ['workerId', 'status', 'host', 'pid', 'version', 'queues', 'concurrency', 'runningCount'],
  properties: {
    workerId: { type: 'string' },
    status: { type: 'string', enum: ['live', 'stopped', 'gone'] },
    host: { type: 'string' },
    pid: { type: 'integer' },
    version: { type: 'string' },
    queues: { type: 'array', items: { type: 'string' } },
    concurrency: { type: 'integer' },
    runningCount: { type: 'integer', description: 'jobs running now' },
    running: { type: 'array', items: jobRef, description: 'what it runs (the first 50)' },
    startedAt: { type: 'integer' },
    seenAt: { type: 'integer', description: 'its last heartbeat (store clock, ms)' },
    heartbeatAgeMs: { type: 'integer' },
    goneAfterMs: { type: 'integer', description: 'gone with no heartbeat for this long' },
    reaped: {
      type: 'array',
      description: 'jobs the reaper took back from it, newest first',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          queue: { type: 'string' },
          outcome: { type: 'string', enum: ['requeued', 'failed'] },
          at: { type: 'integer' },
        },
      },
    },
  },
} as const;

export function workerRoutes(app: FastifyInstance, api: ApiContext): void {
  app.get(
    '/workers',
    {
      schema: {
        summary: 'The supervisors: live, stopped, and gone',
        description:
          'Every supervisor that announced itself in the last hour (each announces at its heartbeat interval). `gone`: no heartbeat for `goneAfterMs`; `reaped` lists the jobs the reaper took back from it.',
        tags: ['workers'],
        security: bearerSecurity,
        response: {
          200: {
            type: 'object',
            required: ['workers'],
            properties: { workers: { type: 'array', items: worker } },
          },
          ...errorReplies,
        },
      },
    },
    async () => {
      if (!hasFleet(api.store))
        throw new HttpError(CODE.NOT_FOUND, `the ${api.store.kind} store keeps no fleet`);
      return { workers: await api.store.workers() };
    },
  );
}
