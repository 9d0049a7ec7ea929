// What is done to a schedule over HTTP (docs/schedules.md): POST /schedules/:id/pause, resume,
// trigger and backfill, each one Client call (client/schedules/).

import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../ApiContext.js';
import { bearerSecurity, bodyErrorReplies, ref } from '../schemas.js';
import type { OVERLAP_POLICIES } from '../../client/schedules/scheduleSpec.js';
import { one, overlap, params, time } from './scheduleSchemas.js';

export function scheduleActionRoutes(app: FastifyInstance, api: ApiContext): void {
  app.post(
    '/schedules/:id/pause',
    {
      schema: {
        summary: 'Pause a schedule (no tick fires while paused)',
        tags: ['schedules'],
        security: bearerSecurity,
        params,
        body: {
          type: ['object', 'null'],
          additionalProperties: false,
          properties: { note: { type: 'string', maxLength: 1000 } },
        },
        response: one,
      },
    },
    async (request) => {
      const { id } = request.params as { id: string };
      const body = request.body as { note?: string } | null | undefined;
      return api.client.pauseSchedule(id, body?.note);
    },
  );

  app.post(
    '/schedules/:id/resume',
    {
      schema: {
        summary: 'Resume a paused schedule (from the next tick after now)',
        tags: ['schedules'],
        security: bearerSecurity,
        params,
        response: one,
      },
    },
    async (request) => api.client.resumeSchedule((request.params as { id: string }).id),
  );

  app.post(
    '/schedules/:id/trigger',
    {
      schema: {
        summary: 'Run the schedule once now, obeying its overlap policy',
        description: '`job_id` is null when the policy started nothing (skip, with the last job unfinished).',
        tags: ['schedules'],
        security: bearerSecurity,
        params,
        response: {
          200: { type: 'object', properties: { job_id: { type: ['string', 'null'] } } },
          ...bodyErrorReplies,
          409: ref('Error'),
        },
      },
    },
    async (request) => ({ job_id: await api.client.triggerSchedule((request.params as { id: string }).id) }),
  );

  app.post(
    '/schedules/:id/backfill',
    {
      schema: {
        summary: 'Run the ticks of a past range (at most 10,000), under an overlap policy of its own',
        tags: ['schedules'],
        security: bearerSecurity,
        params,
        body: {
          type: 'object',
          required: ['from', 'to'],
          additionalProperties: false,
          properties: { from: time, to: time, overlap: { ...overlap, description: 'default allowAll' } },
        },
        response: {
          200: { type: 'object', properties: { job_ids: { type: 'array', items: { type: 'string' } } } },
          ...bodyErrorReplies,
          409: ref('Error'),
        },
      },
    },
    async (request) => {
      const { id } = request.params as { id: string };
      const b = request.body as {
        from: number | string;
        to: number | string;
        overlap?: (typeof OVERLAP_POLICIES)[number];
      };
      return { job_ids: await api.client.backfillSchedule(id, b.from, b.to, b.overlap) };
    },
  );
}
