// GET /healthz: the server answers and Redis does (one bounded read); 503 when it does not.
// GET /openapi.json: the document @fastify/swagger builds from the routes' schemas.

import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../ApiContext.js';
import { bearerSecurity, ref } from '../schemas.js';

export function healthRoutes(app: FastifyInstance, api: ApiContext): void {
  app.get(
    '/healthz',
    {
      schema: {
        summary: 'Liveness, with Redis reachable',
        tags: ['health'],
        response: {
          200: { type: 'object', properties: { status: { type: 'string' }, redis: { type: 'string' } } },
          503: ref('Error'),
        },
      },
    },
    async () => {
      await api.store.queues();
      return { status: 'ok', redis: 'reachable' };
    },
  );

  app.get(
    '/openapi.json',
    { schema: { summary: 'This document (OpenAPI 3)', tags: ['health'], security: bearerSecurity } },
    async () => app.swagger(),
  );
}
