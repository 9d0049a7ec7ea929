// The schemas the schedule routes share (schedules.ts, scheduleActions.ts): a schedule's id, the
// upsert's body and the schedule as read (docs/schedules.md; the OpenAPI document shows them).

import { bodyErrorReplies, queueName, ref } from '../schemas.js';
import { OVERLAP_POLICIES } from '../../client/schedules/scheduleSpec.js';

export const scheduleId = { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,100}$' } as const;
export const params = { type: 'object', required: ['id'], properties: { id: scheduleId } } as const;
export const time = {
  anyOf: [
    { type: 'integer', minimum: 0 },
    { type: 'string', minLength: 1, maxLength: 64 },
  ],
  description: 'ms since epoch, or an ISO 8601 text',
} as const;
export const overlap = { type: 'string', enum: OVERLAP_POLICIES } as const;

export const scheduleBody = {
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
    queue: queueName,
    timezone: { type: 'string', minLength: 1, maxLength: 100 },
    overlap,
    catchupWindowMs: { type: 'integer', minimum: 0 },
    jitterMs: { type: 'integer', minimum: 0 },
    startAt: time,
    endAt: time,
    paused: { type: 'boolean' },
    note: { type: 'string', maxLength: 1000 },
    pauseOnFailure: {
      type: 'boolean',
      description:
        "pause the schedule when a tick's job ends failed, with a note naming the job and its error",
    },
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
    pausedOnFailureOf: {
      type: 'string',
      description: 'the job whose failure last paused the schedule (pauseOnFailure)',
    },
  },
} as const;

/** The reply of a call that answers with the schedule. */
export const one = { 200: scheduleSchema, ...bodyErrorReplies, 409: ref('Error') } as const;
