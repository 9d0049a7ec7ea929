// Schedules (docs/schedules.md): GET /schedules, GET/PUT/DELETE /schedules/:id, each one Client
// call (client/schedules/). What is done to a schedule (pause, resume, trigger, backfill) is in
// scheduleActions.ts; the schemas both share in scheduleSchemas.ts.

import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../ApiContext.js';
import { bearerSecurity, bodyErrorReplies, errorReplies } from '../schemas.js';
import type { ScheduleOptions } from '../../client/schedules/scheduleSpec.js';
import { ScheduleNotFoundError } from '../../errors.js';
import { one, params, scheduleBody, scheduleSchema } from './scheduleSchemas.js';

export function scheduleRoutes(app: FastifyInstance, api: ApiContext): void {
  app.get(
    '/schedules',
    {
      schema: {
        summary: 'Every schedule, with its text and next ticks',
        tags: ['schedules'],
        security: bearerSecurity,
        response: {
          200: { type: 'object', properties: { schedules: { type: 'array', items: scheduleSchema } } },
          ...errorReplies,
        },
      },
    },
    async () => ({ schedules: await api.client.schedules() }),
  );

  app.get(
    '/schedules/:id',
    {
      schema: {
        summary: 'One schedule',
        tags: ['schedules'],
        security: bearerSecurity,
        params,
        response: { 200: scheduleSchema, ...errorReplies },
      },
    },
    async (request) => {
      const { id } = request.params as { id: string };
      const s = await api.client.getSchedule(id);
      if (!s) throw new ScheduleNotFoundError(id);
      return s;
    },
  );

  app.put(
    '/schedules/:id',
    {
      schema: {
        summary: 'Create or update a schedule (an upsert)',
        description:
          'Exactly one of cron and everyMs. Refused with 400 INVALID_SCHEDULE naming the field, or UNKNOWN_MACHINE.',
        tags: ['schedules'],
        security: bearerSecurity,
        params,
        body: scheduleBody,
        response: one,
      },
    },
    async (request) => {
      const { id } = request.params as { id: string };
      return api.client.schedule(id, request.body as ScheduleOptions);
    },
  );

  app.delete(
    '/schedules/:id',
    {
      schema: {
        summary: 'Remove a schedule (its jobs stay)',
        tags: ['schedules'],
        security: bearerSecurity,
        params,
        response: {
          200: { type: 'object', properties: { removed: { type: 'boolean' } } },
          ...bodyErrorReplies,
        },
      },
    },
    async (request) => {
      const { id } = request.params as { id: string };
      if (!(await api.client.removeSchedule(id))) throw new ScheduleNotFoundError(id);
      return { removed: true };
    },
  );
}
