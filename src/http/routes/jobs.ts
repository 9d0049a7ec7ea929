// Jobs: submit (with the synchronous `?wait` path), read, list, read the audit log, cancel, and
// deliver an event. Every write goes through the Client, so its checks and errors are the API's.

import type { FastifyInstance, FastifyReply } from 'fastify';
import { ulidFactory } from '../../runtime/ulids.js';
import { JobNotFoundError } from '../../errors.js';
import type { JobStatus } from '../../store/types.js';
import type { ApiContext } from '../ApiContext.js';
import { HttpError } from '../errorReply.js';
import { jobView } from '../../client/recordView.js';
import { parseWait } from '../parseWait.js';
import { enqueueArgsOf, type EnqueueBody } from '../enqueueBody.js';
import { notSeenFinishing, whileConnected } from '../clientWait.js';
import { batchJobRoute } from './jobBatch.js';
import {
  auditEntry,
  bearerSecurity,
  bodyErrorReplies,
  enqueueBody,
  enqueueQuery,
  errorReplies,
  idParams,
  enqueueReply,
  listQuery,
  queueQuery,
  ref,
  sendBody,
} from '../schemas.js';
import { CODE } from '../../errorCodes.js';

const ulid = ulidFactory();

interface SendBody {
  event: { type: string; [key: string]: unknown };
  eventId?: string;
  to?: string;
  until?: 'accepted';
  ttlMs?: number;
}

type IdParams = { id: string };
type QueueQuery = { queue?: string };

const location = (id: string): string => `/jobs/${encodeURIComponent(id)}`;

/** The one Idempotency-Key header value, or undefined; refused when repeated. */
function headerKey(value: string | string[] | undefined): string | undefined {
  if (Array.isArray(value))
    throw new HttpError(CODE.INVALID_INPUT, 'Idempotency-Key may be given once', {
      field: 'Idempotency-Key',
    });
  return value;
}

/** Registers the jobs routes, one concern each, in the order the OpenAPI document lists them. */
export function jobRoutes(app: FastifyInstance, api: ApiContext): void {
  submitJobRoute(app, api);
  batchJobRoute(app, api);
  listJobsRoute(app, api);
  getJobRoute(app, api);
  jobEventsRoute(app, api);
  cancelJobRoute(app, api);
  sendEventRoute(app, api);
}

/** POST /jobs: enqueue, and with `?wait` hold the request until the job finishes or the wait passes. */
function submitJobRoute(app: FastifyInstance, api: ApiContext): void {
  app.post(
    '/jobs',
    {
      schema: {
        summary: 'Submit a job',
        description:
          'Answers 202 with the job id once the job is stored. With `?wait`, holds the request until the job finishes (200 with its record) or the wait passes (202). The Idempotency-Key header (or `idempotencyKey`) makes a retry return the first job. When a dedupe or idempotency key kept an existing job, the 202 says `deduplicated: true` and both replies carry the header `Machinist-Deduplicated: true`.',
        tags: ['jobs'],
        security: bearerSecurity,
        headers: {
          type: 'object',
          properties: { 'idempotency-key': { type: 'string', minLength: 1, maxLength: 256 } },
        },
        querystring: enqueueQuery,
        body: enqueueBody,
        response: { 200: ref('Job'), 202: enqueueReply, ...bodyErrorReplies },
      },
    },
    async (request, reply) => {
      const { machine, input, options } = enqueueArgsOf(request.body as EnqueueBody);
      const key = headerKey(request.headers['idempotency-key']);
      if (key !== undefined && options.idempotencyKey !== undefined && key !== options.idempotencyKey)
        throw new HttpError(CODE.INVALID_INPUT, 'the Idempotency-Key header and idempotencyKey differ', {
          field: 'idempotencyKey',
        });
      if (key !== undefined) options.idempotencyKey = key;
      const { wait } = request.query as { wait?: string };
      // Checked before the job is made: a bad wait writes nothing.
      const waitMs = wait === undefined ? undefined : parseWait(wait, api.maxWaitMs);
      if (waitMs === undefined || waitMs === 0) {
        const { id, deduplicated } = await api.client.enqueueWithInfo(machine, input, options);
        return accepted(reply, id, deduplicated);
      }
      // A client that leaves ends its wait.
      const connected = whileConnected(reply);
      try {
        // The job is made with the wait's watch on it (one step): a job that ends before the
        // enqueue answers, and whose record goes as it ends (a minimal one), is still seen.
        const { id, deduplicated, result } = await api.client.enqueueAndWaitWithInfo(
          machine,
          input,
          options,
          {
            timeoutMs: waitMs,
            signal: connected.signal,
          },
        );
        void reply.header('location', location(id));
        if (deduplicated) void reply.header('machinist-deduplicated', 'true');
        try {
          const job = await result;
          return reply.code(200).send(jobView(job, api.showStacks(request)));
        } catch (err) {
          // The job is stored either way: not seen finishing is a 202.
          if (!notSeenFinishing(err)) throw err;
        }
        return accepted(reply, id, deduplicated);
      } finally {
        connected.release();
      }
    },
  );
}

/** The 202 of POST /jobs: the job is stored (its location, and whether a key kept it). */
function accepted(reply: FastifyReply, id: string, deduplicated: boolean): FastifyReply {
  void reply.header('location', location(id));
  if (deduplicated) void reply.header('machinist-deduplicated', 'true');
  return reply.code(202).send(deduplicated ? { job_id: id, deduplicated } : { job_id: id });
}

/** GET /jobs: a page of a queue's jobs. */
function listJobsRoute(app: FastifyInstance, api: ApiContext): void {
  app.get(
    '/jobs',
    {
      schema: {
        summary: 'List jobs, a page at a time',
        description: 'Pass the reply’s `cursor` back for the next page; it is null after the last.',
        tags: ['jobs'],
        security: bearerSecurity,
        querystring: listQuery,
        response: {
          200: {
            type: 'object',
            properties: { jobs: { type: 'array', items: ref('Job') }, cursor: { type: ['string', 'null'] } },
          },
          ...errorReplies,
        },
      },
    },
    async (request) => {
      const stacks = api.showStacks(request);
      const q = request.query as {
        queue?: string;
        status?: JobStatus;
        machine?: string;
        parentId?: string;
        cursor?: string;
        limit?: number;
      };
      const page = await api.client.list({ ...q, queue: q.queue ?? api.defaultQueue });
      return { jobs: page.jobs.map((j) => jobView(j, stacks)), cursor: page.cursor };
    },
  );
}

/** GET /jobs/:id: the job's record. */
function getJobRoute(app: FastifyInstance, api: ApiContext): void {
  app.get(
    '/jobs/:id',
    {
      schema: {
        summary: 'A job’s record',
        tags: ['jobs'],
        security: bearerSecurity,
        params: idParams,
        querystring: queueQuery,
        response: { 200: ref('Job'), ...errorReplies },
      },
    },
    async (request) => {
      const { id } = request.params as IdParams;
      const { queue } = request.query as QueueQuery;
      const job = await api.client.get(id, { queue });
      if (!job) throw new JobNotFoundError(id, queue);
      return jobView(job, api.showStacks(request));
    },
  );
}

/** GET /jobs/:id/events: the job's audit log. */
function jobEventsRoute(app: FastifyInstance, api: ApiContext): void {
  app.get(
    '/jobs/:id/events',
    {
      schema: {
        summary: 'A job’s audit log, oldest first',
        tags: ['jobs'],
        security: bearerSecurity,
        params: idParams,
        querystring: queueQuery,
        response: {
          200: { type: 'object', properties: { events: { type: 'array', items: auditEntry } } },
          ...errorReplies,
        },
      },
    },
    async (request) => {
      const { id } = request.params as IdParams;
      const { queue } = request.query as QueueQuery;
      return { events: await api.client.events(id, { queue }) };
    },
  );
}

/** POST /jobs/:id/cancel. */
function cancelJobRoute(app: FastifyInstance, api: ApiContext): void {
  app.post(
    '/jobs/:id/cancel',
    {
      schema: {
        summary: 'Cancel a job',
        description:
          '`cancelled` is false when the job had already finished. A running job’s signal fires and it ends cancelled.',
        tags: ['jobs'],
        security: bearerSecurity,
        params: idParams,
        querystring: queueQuery,
        response: {
          200: {
            type: 'object',
            properties: { job_id: { type: 'string' }, cancelled: { type: 'boolean' } },
          },
          ...bodyErrorReplies,
        },
      },
    },
    async (request) => {
      const { id } = request.params as IdParams;
      const { queue } = request.query as QueueQuery;
      return { job_id: id, cancelled: await api.client.cancel(id, { queue }) };
    },
  );
}

/** POST /jobs/:id/events: an event to a pipeline job's inbox. */
function sendEventRoute(app: FastifyInstance, api: ApiContext): void {
  app.post(
    '/jobs/:id/events',
    {
      schema: {
        summary: 'Deliver an event to a pipeline job',
        description:
          'Appends the event to the job’s inbox (once per eventId, or Idempotency-Key). 404 for an unknown job, 409 for a finished one.',
        tags: ['jobs'],
        security: bearerSecurity,
        params: idParams,
        querystring: queueQuery,
        body: sendBody,
        response: {
          202: {
            type: 'object',
            properties: { job_id: { type: 'string' }, event_id: { type: 'string' } },
          },
          409: ref('Error'),
          ...bodyErrorReplies,
        },
      },
    },
    async (request, reply) => {
      const { id } = request.params as IdParams;
      const { queue } = request.query as QueueQuery;
      const { event, ...options } = request.body as SendBody;
      const key = headerKey(request.headers['idempotency-key']);
      const eventId = options.eventId ?? key ?? ulid();
      await api.client.send(id, event, { ...options, queue, eventId });
      return reply.code(202).send({ job_id: id, event_id: eventId });
    },
  );
}
