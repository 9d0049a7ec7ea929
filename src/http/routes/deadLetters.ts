// Dead letters: jobs that failed for good. List them, put one back in line, or purge one.

import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../ApiContext.js';
import { HttpError } from '../errorReply.js';
import { withoutStack } from '../errorStacks.js';
import {
  bearerSecurity,
  bodyErrorReplies,
  deadLetterSchema,
  errorReplies,
  idParams,
  queueQuery,
} from '../schemas.js';

const queueName = { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,100}$' } as const;

export function deadLetterRoutes(app: FastifyInstance, api: ApiContext): void {
  app.get(
    '/dead-letters',
    {
      schema: {
        summary: 'Dead letters of a queue, newest first',
        tags: ['dead letters'],
        security: bearerSecurity,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { queue: queueName, limit: { type: 'integer', minimum: 1, maximum: 1000 } },
        },
        response: {
          200: { type: 'object', properties: { deadLetters: { type: 'array', items: deadLetterSchema } } },
          ...errorReplies,
        },
      },
    },
    async (request) => {
      const { queue, limit } = request.query as { queue?: string; limit?: number };
      const deadLetters = await api.client.deadLetters({ queue: queue ?? api.defaultQueue, limit });
      if (api.showStacks(request)) return { deadLetters };
      return { deadLetters: deadLetters.map((d) => ({ ...d, error: withoutStack(d.error) })) };
    },
  );

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
        throw new HttpError('NOT_DEAD_LETTER', `job ${id} is not a dead letter`, { jobId: id, queue });
      return { job_id: id, purged: true };
    },
  );
}
