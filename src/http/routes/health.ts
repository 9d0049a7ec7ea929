// GET /healthz: the server answers and its store does (one bounded read); 503 when it does not.
// The answer names the store it checked, so a server on the embedded MemoryStore does not claim
// a Redis it never had. GET /openapi.json: the document @fastify/swagger builds from the routes.

import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../ApiContext.js';
import { bearerSecurity, ref } from '../schemas.js';
import { hasHealthReport } from '../../store/types.js';

export function healthRoutes(app: FastifyInstance, api: ApiContext): void {
  app.get(
    '/healthz',
    {
      schema: {
        summary: 'Liveness, with the store reachable',
        description:
          "`store` names the backend checked. On Redis the answer keeps `redis: 'reachable'` (what it said before `store` was added).",
        tags: ['health'],
        response: {
          200: {
            type: 'object',
            required: ['status', 'store'],
            properties: {
              status: { type: 'string', enum: ['ok'] },
              store: { type: 'string', enum: ['redis', 'memory'] },
              redis: { type: 'string', enum: ['reachable'], description: 'only when `store` is redis' },
            },
          },
          500: ref('Error'),
          503: ref('Error'),
        },
      },
    },
    async () => {
      await api.store.queues();
      const problem = hasHealthReport(api.store) ? api.store.unhealthy() : undefined;
      if (problem) throw problem;
      return api.store.kind === 'redis'
        ? { status: 'ok', store: 'redis', redis: 'reachable' }
        : { status: 'ok', store: api.store.kind };
    },
  );

  app.get(
    '/openapi.json',
    {
      schema: {
        summary: 'This document (OpenAPI 3)',
        tags: ['health'],
        security: bearerSecurity,
        response: {
          200: { description: 'the OpenAPI 3.0.3 document', type: 'object', additionalProperties: true },
          401: ref('Error'),
          403: ref('Error'),
          500: ref('Error'),
        },
      },
    },
    async () => app.swagger(),
  );
}
