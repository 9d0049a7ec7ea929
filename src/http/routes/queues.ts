// Queues: each queue the deployment knows with its job counts per status, what `machinist
// stats` prints (one count per index, as Store.counts reads them).

import type { FastifyInstance } from 'fastify';
import { queueTotals } from '../../store/queueTotals.js';
import { COUNTED } from '../../store/types.js';
import type { ApiContext } from '../ApiContext.js';
import { bearerSecurity, bodyErrorReplies, errorReplies, queueParams, ref } from '../schemas.js';
import { MAX_PARTITIONS } from '../../store/partitions.js';

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
                items: {
                  type: 'object',
                  properties: {
                    name: { type: 'string' },
                    counts,
                    partitions: {
                      type: 'array',
                      description:
                        "a partitioned queue's stored queues (its own name, then `<queue>#<i>`), each with its counts; `counts` is their sum (docs/partitions.md)",
                      items: { type: 'object', properties: { name: { type: 'string' }, counts } },
                    },
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
      const { queue } = request.query as { queue?: string };
      // A partitioned queue is one entry, summed over its partitions (store/queueTotals.ts).
      const queues = [];
      for (const [name, total] of await queueTotals(api.store, queue)) {
        const partitions = [...total.parts].map(([stored, counts]) => ({ name: stored, counts }));
        queues.push(
          partitions.length > 1 ? { name, counts: total.counts, partitions } : { name, counts: total.counts },
        );
      }
      return { queues };
    },
  );
  partitionsRoute(app, api);
}

/** PUT /queues/:queue/partitions: split a queue into partitions (Client.configureQueue). */
function partitionsRoute(app: FastifyInstance, api: ApiContext): void {
  app.put(
    '/queues/:queue/partitions',
    {
      schema: {
        summary: 'Split a queue into partitions (docs/partitions.md)',
        description:
          'Refused with 409 PARTITIONS_IN_USE while the queue or a partition of it holds any job; the same count again changes nothing.',
        tags: ['queues'],
        security: bearerSecurity,
        params: queueParams,
        body: {
          type: 'object',
          required: ['partitions'],
          additionalProperties: false,
          properties: { partitions: { type: 'integer', minimum: 1, maximum: MAX_PARTITIONS } },
        },
        response: {
          200: {
            type: 'object',
            properties: { queue: { type: 'string' }, partitions: { type: 'integer' } },
          },
          ...bodyErrorReplies,
          409: ref('Error'),
        },
      },
    },
    async (request) => {
      const { queue } = request.params as { queue: string };
      const { partitions } = request.body as { partitions: number };
      await api.client.configureQueue(queue, { partitions });
      return { queue, partitions };
    },
  );
}
