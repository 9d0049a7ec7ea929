// Dead letters: jobs that failed for good. List them, put one back in line, purge one or a
// queue's all. Broken jobs (records no supervisor could run, e.g. UNKNOWN_MACHINE) are listed
// beside them; retry and purge take either.

import { wireValue } from '../../store/valueCodec.js';
import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../ApiContext.js';
import { HttpError } from '../errorReply.js';
import { withoutStack } from '../../client/recordView.js';
import {
  bearerSecurity,
  bodyErrorReplies,
  deadLetterSchema,
  errorReplies,
  idParams,
  queuePageQuery,
  queueQuery,
} from '../schemas.js';
import { CODE } from '../../errorCodes.js';

/** Registers the dead-letter routes, one concern each, in the order the OpenAPI document lists them. */
export function deadLetterRoutes(app: FastifyInstance, api: ApiContext): void {
  listDeadLettersRoute(app, api);
  listBrokenJobsRoute(app, api);
  purgeDeadLettersRoute(app, api);
  retryDeadLetterRoute(app, api);
  purgeDeadLetterRoute(app, api);
}

/** GET /dead-letters: a queue's dead letters, newest first. */
function listDeadLettersRoute(app: FastifyInstance, api: ApiContext): void {
  app.get(
    '/dead-letters',
    {
      schema: {
        summary: 'Dead letters of a queue, newest first',
        tags: ['dead letters'],
        security: bearerSecurity,
        querystring: queuePageQuery,
        response: {
          200: { type: 'object', properties: { deadLetters: { type: 'array', items: deadLetterSchema } } },
          ...errorReplies,
        },
      },
    },
    async (request) => {
      const { queue, limit } = request.query as { queue?: string; limit?: number };
      const list = await api.client.deadLetters({ queue: queue ?? api.defaultQueue, limit });
      const stacks = api.showStacks(request);
      // Inputs in their stored form, as job records show them (docs/http.md#values).
      const deadLetters = list.map((d) => ({
        ...d,
        input: wireValue(d.input),
        error: stacks ? d.error : withoutStack(d.error),
      }));
      return { deadLetters };
    },
  );
}

/** GET /broken-jobs: a queue's broken jobs, newest first. */
function listBrokenJobsRoute(app: FastifyInstance, api: ApiContext): void {
  app.get(
    '/broken-jobs',
    {
      schema: {
        summary: 'Broken jobs of a queue, newest first',
        description:
          'Records a supervisor could not run (an unknown machine, an unreadable ingress entry). `POST /dead-letters/{id}/retry` puts one back in line.',
        tags: ['dead letters'],
        security: bearerSecurity,
        querystring: queuePageQuery,
        response: {
          200: {
            type: 'object',
            properties: {
              brokenJobs: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    id: { type: 'string' },
                    queue: { type: 'string' },
                    reason: { type: 'string' },
                    at: { type: 'number' },
                    raw: { type: 'string' },
                  },
                },
              },
            },
          },
          ...errorReplies,
        },
      },
    },
    async (request) => {
      const { queue, limit } = request.query as { queue?: string; limit?: number };
      return { brokenJobs: await api.client.broken({ queue: queue ?? api.defaultQueue, limit }) };
    },
  );
}

/** DELETE /dead-letters: every dead letter of a queue. */
function purgeDeadLettersRoute(app: FastifyInstance, api: ApiContext): void {
  app.delete(
    '/dead-letters',
    {
      schema: {
        summary: 'Purge every dead letter of a queue',
        description: 'Their records then expire like finished jobs’. `purged` is how many there were.',
        tags: ['dead letters'],
        security: bearerSecurity,
        querystring: queueQuery,
        response: {
          200: { type: 'object', properties: { queue: { type: 'string' }, purged: { type: 'integer' } } },
          ...bodyErrorReplies,
        },
      },
    },
    async (request) => {
      const queue = (request.query as { queue?: string }).queue ?? api.defaultQueue;
      return { queue, purged: await api.client.purgeDeadLetters({ queue }) };
    },
  );
}

/** POST /dead-letters/:id/retry: back in line with fresh attempts. */
function retryDeadLetterRoute(app: FastifyInstance, api: ApiContext): void {
  app.post(
    '/dead-letters/:id/retry',
    {
      schema: {
        summary: 'Put a dead letter back in line, with fresh attempts',
        tags: ['dead letters'],
        security: bearerSecurity,
        params: idParams,
        querystring: queueQuery,
        response: {
          200: { type: 'object', properties: { job_id: { type: 'string' }, status: { type: 'string' } } },
          ...bodyErrorReplies,
        },
      },
    },
    async (request) => {
      const { id } = request.params as { id: string };
      const { queue } = request.query as { queue?: string };
      await api.client.retryDeadLetter(id, { queue });
      return { job_id: id, status: 'queued' };
    },
  );
}

/** DELETE /dead-letters/:id: one dead letter (or broken job). */
function purgeDeadLetterRoute(app: FastifyInstance, api: ApiContext): void {
  app.delete(
    '/dead-letters/:id',
    {
      schema: {
        summary: 'Purge one dead letter',
        description:
          'The job’s record then expires like a finished job’s. 404 when the job is no dead letter.',
        tags: ['dead letters'],
        security: bearerSecurity,
        params: idParams,
        querystring: queueQuery,
        response: {
          200: { type: 'object', properties: { job_id: { type: 'string' }, purged: { type: 'boolean' } } },
          ...bodyErrorReplies,
        },
      },
    },
    async (request) => {
      const { id } = request.params as { id: string };
      const { queue } = request.query as { queue?: string };
      if (!(await api.client.purgeDeadLetter(id, { queue })))
        throw new HttpError(CODE.NOT_DEAD_LETTER, `job ${id} is not a dead letter`, { jobId: id, queue });
      return { job_id: id, purged: true };
    },
  );
}
