// Live streams as server-sent events, from the queue's event stream (EventHub: one poller per
// queue however many clients). Every message has its own id (streamIds.ts): a client that
// reconnects with `Last-Event-ID` gets exactly what came after that message, then live events.
//
// GET /events?queue=      every lifecycle change on the queue: `data: {jobId,type,status,at}`
// GET /jobs/:id/stream    one job: first its record (`event: job`; not on a resume), then its
//                         changes; after it finishes, its final record and the stream ends. A
//                         resume after the final record answers 204: the standard's way to tell
//                         EventSource to stop reconnecting.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { JobNotFoundError } from '../../errors.js';
import { FINISHED, type JobRecord, type QueueEvent } from '../../store/types.js';
import type { ApiContext } from '../ApiContext.js';
import type { Subscription } from '../EventHub.js';
import { HttpError } from '../errorReply.js';
import { jobView } from '../../client/recordView.js';
import { SseStream } from '../SseStream.js';
import { bearerSecurity, errorReplies, idParams, queueQuery } from '../schemas.js';
import { parseLastEventId, recordId, type ResumePoint } from '../streamIds.js';
import { CODE } from '../../errorCodes.js';

const eventData = (e: QueueEvent) => ({ jobId: e.jobId, type: e.type, status: e.status, at: e.at });

const finishes = (e: QueueEvent): boolean => e.status !== undefined && FINISHED.has(e.status);

/** The Last-Event-ID header, checked. */
const lastEventId = (request: FastifyRequest): ResumePoint | undefined =>
  parseLastEventId(request.headers['last-event-id']);

const sseResponse = {
  200: {
    description:
      'text/event-stream: `id: <stream position>`, `data: <JSON>`; comments every few seconds keep it open',
    content: { 'text/event-stream': { schema: { type: 'string' } } },
  },
  ...errorReplies,
};

const jobStreamResponse = {
  ...sseResponse,
  204: {
    description:
      'a resume (Last-Event-ID) after the final record of a finished job: nothing more will come (EventSource stops)',
    type: 'null',
  },
};

/** An SSE stream on the request, whose close ends its subscription. */
function openStream(
  api: ApiContext,
  request: FastifyRequest,
  reply: FastifyReply,
  sub: Subscription,
): SseStream {
  const stream = new SseStream(request, reply, api.heartbeatMs, api.streams);
  stream.onClose(() => sub.close());
  return stream;
}

/** Registers the live routes: a queue's events, and one job's. */
export function liveRoutes(app: FastifyInstance, api: ApiContext): void {
  queueEventsRoute(app, api);
  jobStreamRoute(app, api);
}

/** GET /events: every lifecycle change on the queue. */
function queueEventsRoute(app: FastifyInstance, api: ApiContext): void {
  app.get(
    '/events',
    {
      schema: {
        summary: 'Follow a queue’s lifecycle events (server-sent events)',
        tags: ['live'],
        security: bearerSecurity,
        querystring: queueQuery,
        headers: { type: 'object', properties: { 'last-event-id': { type: 'string' } } },
        response: sseResponse,
      },
    },
    async (request, reply) => {
      const queue = (request.query as { queue?: string }).queue ?? api.defaultQueue;
      const from = lastEventId(request)?.cursor;
      // Only queues that exist: each followed queue holds a connection while followed.
      if (!(await api.store.queues()).includes(queue))
        throw new HttpError(CODE.UNKNOWN_QUEUE, `no queue named '${queue}' is known`, { queue });
      const sub = await api.hub.subscribe(queue, from);
      const stream = openStream(api, request, reply, sub);
      const send = (events: QueueEvent[]) => {
        for (const e of events) stream.send({ id: e.cursor, data: eventData(e) });
      };
      send(sub.replay);
      sub.listen(send);
    },
  );
}

/** GET /jobs/:id/stream: one job's record, then its changes until it finishes. */
function jobStreamRoute(app: FastifyInstance, api: ApiContext): void {
  app.get(
    '/jobs/:id/stream',
    {
      schema: {
        summary: 'Follow one job (server-sent events) until it finishes',
        tags: ['live'],
        security: bearerSecurity,
        params: idParams,
        querystring: queueQuery,
        headers: { type: 'object', properties: { 'last-event-id': { type: 'string' } } },
        response: jobStreamResponse,
      },
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      const { queue } = request.query as { queue?: string };
      const from = lastEventId(request);
      const stacks = api.showStacks(request);
      const view = (record: JobRecord) => jobView(record, stacks);
      const first = await api.store.getJob(id, queue);
      if (!first) throw new JobNotFoundError(id, queue);
      const sub = await api.hub.subscribe(first.queue, from?.cursor);
      // Read after subscribing: whatever changes after this read arrives as an event.
      let job;
      try {
        job = await api.client.get(id, { queue: first.queue });
        if (!job) throw new JobNotFoundError(id, queue);
        if (FINISHED.has(job.status)) {
          const messages = await finishedJobMessages(api, view, job, sub.start, from);
          if (messages.length === 0) {
            sub.close();
            return reply.code(204).send();
          }
          const stream = openStream(api, request, reply, sub);
          for (const m of messages) stream.send(m);
          return stream.end();
        }
      } catch (err) {
        sub.close();
        throw err;
      }
      const stream = openStream(api, request, reply, sub);
      let finishing = false;
      /** Sends the final record (as of stream position `at`) and ends the stream. */
      const finish = async (at: string) => {
        if (finishing) return;
        finishing = true;
        try {
          const last = await api.client.get(id, { queue: first.queue });
          if (last) stream.send({ id: recordId(at), event: 'job', data: view(last) });
        } catch {
          // the client reads the record itself; the stream still ends
        }
        stream.end();
      };
      const send = (events: QueueEvent[]) => {
        for (const e of events) {
          if (e.jobId !== id || stream.closed) continue;
          stream.send({ id: e.cursor, data: eventData(e) });
          if (finishes(e)) return void finish(e.cursor);
        }
      };
      if (from === undefined) stream.send({ id: recordId(sub.start), event: 'job', data: view(job) });
      else send(sub.replay);
      sub.listen(send);
    },
  );
}

interface SseMessage {
  id: string;
  event?: string;
  data: unknown;
}

/**
 * What a stream of a job that has finished sends: exactly what a stream open all along would
 * have sent after `from` (the start of a new stream: its record). Read to the event stream's end,
 * not only to `start`: the finishing event may have come after the subscription began. Empty
 * when the client has the final record already (the route's 204).
 */
async function finishedJobMessages(
  api: ApiContext,
  view: (record: JobRecord) => unknown,
  job: JobRecord,
  start: string,
  from: ResumePoint | undefined,
): Promise<SseMessage[]> {
  const record = (at: string): SseMessage => ({ id: recordId(at), event: 'job', data: view(job) });
  const mine = (await api.hub.readAfter(job.queue, from?.cursor ?? start)).filter((e) => e.jobId === job.id);
  const end = mine.findIndex(finishes);
  // A new stream: the record, as of its finishing event when that came after `start` (so a resume
  // from it skips that event).
  if (from === undefined) return [record(end >= 0 ? mine[end]!.cursor : start)];
  if (end >= 0) {
    const events = mine.slice(0, end + 1).map((e) => ({ id: e.cursor, data: eventData(e) }));
    return [...events, record(mine[end]!.cursor)];
  }
  // The client saw an event (the finishing one, or one before it that the stream has since
  // trimmed) but not the final record after it; or it has the final record: nothing more.
  return from.afterRecord ? [] : [record(from.cursor)];
}
