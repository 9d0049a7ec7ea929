// Schedules (docs/schedules.md): GET/PUT/DELETE /schedules/:id, GET /schedules, and POST
// /schedules/:id/pause|resume|trigger|backfill, each one Client call (client/schedules/).

import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../ApiContext.js';
import { bearerSecurity, bodyErrorReplies, errorReplies, ref } from '../schemas.js';
import { OVERLAP_POLICIES, type ScheduleOptions } from '../../client/schedules/scheduleSpec.js';
import { ScheduleNotFoundError } from '../../errors.js';

const scheduleId = { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,100}$' } as const;
const params = { type: 'object', required: ['id'], properties: { id: scheduleId } } as const;
const time = {
  anyOf: [
    { type: 'integer', minimum: 0 },
    { type: 'string', minLength: 1, maxLength: 64 },
  ],
  description: 'ms since epoch, or an ISO 8601 text',
} as const;
const overlap = { type: 'string', enum: OVERLAP_POLICIES } as const;

const scheduleBody = {
  type: 'object',
  required: ['machine'],
  additionalProperties: false,
  properties: {
    cron: {
      type: 'string',
      minLength: 1,
      maxLength: 200,
      description: 'croner: 5, 6 (seconds first) or 7 fields',
    },
    everyMs: { type: 'integer', minimum: 1 },
    machine: { type: 'string', minLength: 1, maxLength: 100 },
    input: {},
    queue: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,100}$' },
    timezone: { type: 'string', minLength: 1, maxLength: 100 },
    overlap,
    catchupWindowMs: { type: 'integer', minimum: 0 },
    jitterMs: { type: 'integer', minimum: 0 },
    startAt: time,
    endAt: time,
    paused: { type: 'boolean' },
    note: { type: 'string', maxLength: 1000 },
  },
} as const;

const tickAction = {
  type: 'object',
  properties: {
    at: { type: 'integer' },
    what: { type: 'string' },
    jobId: { type: 'string' },
    detail: { type: 'string' },
  },
} as const;

export const scheduleSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    text: { type: 'string', description: 'the schedule in words (cronstrue)' },
    nextTicks: {
      type: 'array',
      items: { type: 'integer' },
      description: 'the next ticks (ms), none while paused',
    },
    spec: { type: 'object', additionalProperties: true },
    paused: { type: 'boolean' },
    note: { type: ['string', 'null'] },
    next: { type: ['integer', 'null'] },
    buffered: { type: 'array', items: { type: 'object', additionalProperties: true } },
    lastJob: {
      type: ['object', 'null'],
      properties: { id: { type: 'string' }, queue: { type: 'string' }, at: { type: 'integer' } },
    },
    recent: { type: 'array', items: tickAction },
    started: { type: 'integer' },
    skipped: { type: 'integer' },
    missed: { type: 'integer' },
    createdAt: { type: 'integer' },
    updatedAt: { type: 'integer' },
  },
} as const;

const one = { 200: scheduleSchema, ...bodyErrorReplies, 409: ref('Error') } as const;

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
