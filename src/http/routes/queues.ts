// Queues: each queue the deployment knows with its job counts per status, what `machinist
// stats` prints (one count per index, as Store.counts reads them).

import type { FastifyInstance } from 'fastify';
import { COUNTED } from '../../store/types.js';
import type { ApiContext } from '../ApiContext.js';
import { bearerSecurity, errorReplies } from '../schemas.js';

const counts = {
  type: 'object',
  description: '`active` is loading + working; `delayed` is queued with a future run time',
  properties: Object.fromEntries(COUNTED.map((c) => [c, { type: 'integer' }])),
} as const;

export function queueRoutes(app: FastifyInstance, api: ApiContext): void {
  app.get(
    '/queues',
    {
      schema: {
        summary: 'Queues and their job counts per status',
        tags: ['queues'],
        security: bearerSecurity,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            queue: {
              type: 'string',
              pattern: '^[A-Za-z0-9._:-]{1,100}$',
              description: 'only this queue (counted even when the deployment does not list it)',
            },
          },
        },
        response: {
          200: {
            type: 'object',
            properties: {
              queues: {
                type: 'array',
                items: { type: 'object', properties: { name: { type: 'string' }, counts } },
              },
            },
          },
          ...errorReplies,
        },
      },
    },
    async (request) => {
      const { queue } = request.query as { queue?: string };
      const names = queue ? [queue] : (await api.store.queues()).sort();
      const queues = [];
      for (const name of names) queues.push({ name, counts: await api.store.counts(name) });
      return { queues };
    },
  );
}
