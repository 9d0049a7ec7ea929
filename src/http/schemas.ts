// The JSON Schemas of the API's bodies, queries and replies: Fastify validates requests with
// them and @fastify/swagger turns them into the OpenAPI document, so the document is the code.

import { BAND_PRIORITY_NAMES } from '../store/types.js';
import { JOB_STATUSES } from '../store/jobStatus.js';
import { MAX_DELAY_MS } from '../client/validateEnqueue.js';

export const STATUSES = JOB_STATUSES;

/** Queue names as the store accepts them (keys.ts). */
export const queueName = { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,100}$' } as const;
/** The path parameters of a route under /queues/:queue. */
export const queueParams = { type: 'object', required: ['queue'], properties: { queue: queueName } } as const;
const jobId = { type: 'string', minLength: 1, maxLength: 512, pattern: '^[^\\s/?#]+$' } as const;

export const errorSchema = {
  $id: 'Error',
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        field: { type: 'string' },
        jobId: { type: 'string' },
        machine: { type: 'string' },
        queue: { type: 'string' },
        maybeApplied: { type: 'boolean' },
        index: {
          type: 'integer',
          description:
            'POST /jobs/batch: the job (from 0) the error concerns; `field` is within it. A refused body field names its job in `field` (`jobs.3.priority`).',
        },
        issues: {
          type: 'array',
          description:
            "What the job's input schema refused (INVALID_INPUT): each problem's path and message.",
          items: {
            type: 'object',
            required: ['path', 'message'],
            properties: { path: { type: 'string' }, message: { type: 'string' } },
          },
        },
      },
    },
  },
} as const;

const storedError = {
  type: ['object', 'null'],
  properties: { name: { type: 'string' }, message: { type: 'string' }, code: { type: 'string' } },
  additionalProperties: true,
} as const;

export const jobSchema = {
  $id: 'Job',
  type: 'object',
  description: 'A job record (its persisted snapshot left out: `state` and `context` hold what it says).',
  properties: {
    id: { type: 'string' },
    queue: { type: 'string' },
    machine: { type: 'string' },
    version: { type: 'integer' },
    status: { type: 'string', enum: STATUSES },
    state: { description: 'the current state value of the machine' },
    context: {},
    input: {},
    output: {},
    error: storedError,
    attempts: { type: 'integer' },
    maxAttempts: { type: 'integer' },
    leaseRequeues: { type: 'integer' },
    priority: { type: 'string' },
    progress: {},
    parentId: { type: ['string', 'null'] },
    runAt: { type: ['number', 'null'] },
    createdAt: { type: 'number' },
    updatedAt: { type: 'number' },
    finishedAt: { type: ['number', 'null'] },
    cancelRequested: { type: 'boolean' },
    timers: {
      type: 'array',
      description:
        'a pipeline’s pending timers, soonest first: its `after` delays (`xstate.after.<delay>.<state id>`) and delayed events',
      items: {
        type: 'object',
        properties: { event: { type: 'string' }, dueAt: { type: 'number' }, target: { type: 'string' } },
      },
    },
    children: {
      type: 'object',
      properties: {
        total: { type: 'integer' },
        finished: { type: 'integer' },
        jobs: {
          type: 'array',
          items: {
            type: 'object',
            properties: { id: { type: 'string' }, queue: { type: 'string' }, status: { type: 'string' } },
          },
        },
      },
    },
  },
} as const;

/** POST /jobs's 202: the id, and `deduplicated: true` when a key kept an existing job (docs/dedupe.md). */
export const enqueueReply = {
  type: 'object',
  required: ['job_id'],
  properties: {
    job_id: { type: 'string' },
    deduplicated: {
      type: 'boolean',
      description:
        'true when a dedupe key (or an idempotency key) kept an existing job: job_id is that job; absent when the job was made',
    },
  },
} as const;

export const ref = (id: string) => ({ $ref: `${id}#` }) as const;

/** Error replies every route may give (and 401/403 unless the route is open). */
export const errorReplies = {
  400: ref('Error'),
  401: ref('Error'),
  403: ref('Error'),
  404: ref('Error'),
  // INTERNAL: what no other code names (logged by the server; the body says nothing more).
  500: ref('Error'),
  503: ref('Error'),
} as const;

/**
 * Error replies of a route that takes a body (POST, DELETE): Fastify reads any body sent, whether
 * the route wants one or not, so each can answer 413 (too large) and 415 (not JSON).
 */
export const bodyErrorReplies = { ...errorReplies, 413: ref('Error'), 415: ref('Error') } as const;

export const enqueueBody = {
  type: 'object',
  required: ['machine'],
  additionalProperties: false,
  properties: {
    machine: { type: 'string', minLength: 1, maxLength: 100 },
    input: { description: 'the job input: any JSON' },
    queue: queueName,
    priority: { type: 'string', enum: BAND_PRIORITY_NAMES },
    delayMs: { type: 'number', minimum: 0, maximum: MAX_DELAY_MS },
    maxAttempts: { type: 'integer', minimum: 1, maximum: 1000 },
    idempotencyKey: { type: 'string', minLength: 1, maxLength: 256 },
    partitionKey: {
      type: 'string',
      minLength: 1,
      maxLength: 256,
      description:
        'on a partitioned queue, jobs with one key go to one partition (claimed in order); ignored on a queue of one partition',
    },
    dedupe: {
      type: 'object',
      description: 'collapses enqueues with the same key into one job (docs/dedupe.md)',
      required: ['key'],
      additionalProperties: false,
      properties: {
        key: { type: 'string', minLength: 1, maxLength: 256 },
        mode: { type: 'string', enum: ['untilDone', 'ttl', 'debounce'] },
        ttlMs: { type: 'integer', minimum: 1, maximum: MAX_DELAY_MS },
        maxDelayMs: { type: 'integer', minimum: 1, maximum: MAX_DELAY_MS },
        keepLast: { type: 'boolean' },
      },
    },
    concurrencyKey: {
      type: 'string',
      minLength: 1,
      maxLength: 256,
      description:
        "the job's concurrency key: the queue's perKey limit applies per key (docs/flow-control.md)",
    },
    timeoutMs: { type: 'number', exclusiveMinimum: 0 },
    record: {
      type: 'string',
      enum: ['full', 'minimal'],
      description:
        "what the job's record keeps, over its machine's default: 'minimal' writes no audit log or stream entries and deletes the record as the job ends done (docs/concepts.md#minimal-records); not with webhooks or dedupe",
    },
    webhookUrl: { type: 'string', minLength: 1, maxLength: 2048, description: 'POSTed the final job record' },
    stateWebhookUrl: {
      type: 'string',
      minLength: 1,
      maxLength: 2048,
      description: 'POSTed every status change',
    },
    webhookSecret: {
      type: 'string',
      minLength: 1,
      maxLength: 200,
      description: "signs the webhooks (Standard Webhooks, 'whsec_<base64>')",
    },
  },
} as const;

/** The most jobs POST /jobs/batch takes in one request (a larger list is a 400 naming it). */
export const MAX_BATCH_JOBS = 1000;

/** POST /jobs/batch's body: jobs as POST /jobs takes one, checked by the same schema. */
export const batchBody = {
  type: 'object',
  required: ['jobs'],
  additionalProperties: false,
  properties: {
    jobs: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_BATCH_JOBS,
      description: `1 to ${MAX_BATCH_JOBS} jobs, each a POST /jobs body; a refused one refuses the whole batch, and nothing is written`,
      items: enqueueBody,
    },
  },
} as const;

/** One job of POST /jobs/batch's answer, in the order the jobs were sent. */
const batchJob = {
  type: 'object',
  required: ['job_id'],
  properties: {
    job_id: { type: 'string' },
    deduplicated: enqueueReply.properties.deduplicated,
    finished: {
      type: 'boolean',
      description: 'with `?wait`: whether the job was seen finishing within the wait (its record is `job`)',
    },
    job: ref('Job'),
  },
} as const;

/** POST /jobs/batch's 200 (every job finished within the wait) and 202. */
export const batchReply = {
  type: 'object',
  required: ['jobs'],
  properties: { jobs: { type: 'array', items: batchJob } },
} as const;

export const enqueueQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    wait: {
      type: 'string',
      pattern: '^[0-9]+(\\.[0-9]+)?(ms|s|m)?$',
      description: "wait up to this long for the result ('30s', '500ms', '2m'; a bare number is seconds)",
    },
  },
} as const;

export const idParams = {
  type: 'object',
  required: ['id'],
  properties: { id: jobId },
} as const;

export const queueQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { queue: queueName },
} as const;

/** A queue and how many of its entries to list (dead letters, broken jobs). */
export const queuePageQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { queue: queueName, limit: { type: 'integer', minimum: 1, maximum: 1000 } },
} as const;

/** A machine's name in the path (its definition, its chart). */
export const machineNameParams = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string', minLength: 1, maxLength: 100 } },
} as const;

export const listQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    queue: queueName,
    status: { type: 'string', enum: STATUSES },
    machine: { type: 'string', minLength: 1, maxLength: 100 },
    parentId: jobId,
    cursor: { type: 'string', pattern: '^[0-9]+:[0-9]+$' },
    limit: { type: 'integer', minimum: 1, maximum: 1000 },
  },
} as const;

export const sendBody = {
  type: 'object',
  required: ['event'],
  additionalProperties: false,
  properties: {
    event: {
      type: 'object',
      required: ['type'],
      properties: { type: { type: 'string', minLength: 1 } },
      additionalProperties: true,
    },
    eventId: { type: 'string', pattern: '^[\\w.:-]{1,128}$' },
    to: { type: 'string', minLength: 1, maxLength: 1000 },
    until: { type: 'string', enum: ['accepted'] },
    ttlMs: { type: 'integer', minimum: 1 },
  },
} as const;

export const auditEntry = {
  type: 'object',
  required: ['at', 'type'],
  properties: { at: { type: 'number' }, type: { type: 'string' } },
  additionalProperties: true,
} as const;

export const deadLetterSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    queue: { type: 'string' },
    machine: { type: 'string' },
    input: {},
    error: storedError,
    attempts: { type: 'integer' },
    failedAt: { type: 'number' },
  },
} as const;

export const machineSummary = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    kind: { type: 'string', enum: ['job', 'pipeline', 'unknown'] },
    versions: { type: 'array', items: { type: 'integer' } },
    hasLoad: { type: 'boolean' },
    maxAttempts: { type: 'integer' },
  },
} as const;

export const bearerSecurity = [{ bearer: [] }];
