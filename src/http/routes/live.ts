// Live streams as server-sent events, from the queue's event stream (EventHub: one poller per
// queue however many clients). Each event's `id` is its stream position: a client that
// reconnects with `Last-Event-ID` gets what it missed, then the live events.
//
// GET /events?queue=      every lifecycle change on the queue: `data: {jobId,type,status,at}`
// GET /jobs/:id/stream    one job: first its record (`event: job`; not on a resume), then its
//                         changes; after it finishes, its final record and the stream ends.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { JobNotFoundError } from '../../errors.js';
import { FINISHED, type QueueEvent } from '../../store/types.js';
import type { ApiContext } from '../ApiContext.js';
import { CURSOR, type Subscription } from '../EventHub.js';
import { HttpError } from '../errorReply.js';
import { jobView } from '../jobView.js';
import { SseStream } from '../SseStream.js';
import { bearerSecurity, errorReplies, idParams, queueQuery } from '../schemas.js';

const eventData = (e: QueueEvent) => ({ jobId: e.jobId, type: e.type, status: e.status, at: e.at });

/** The Last-Event-ID header, checked: a stream position. */
function lastEventId(request: FastifyRequest): string | undefined {
  const v = request.headers['last-event-id'];
  if (v === undefined || v === '') return undefined;
  if (typeof v !== 'string' || !CURSOR.test(v))
    throw new HttpError(
      'INVALID_INPUT',
      `Last-Event-ID must be a stream position such as '1700000000000-0'`,
      {
        field: 'Last-Event-ID',
      },
    );
  return v;
}

const sseResponse = {
  200: {
    description:
      'text/event-stream: `id: <stream position>`, `data: <JSON>`; comments every few seconds keep it open',
    content: { 'text/event-stream': { schema: { type: 'string' } } },
  },
  ...errorReplies,
};

export function liveRoutes(app: FastifyInstance, api: ApiContext): void {
  const open = (request: FastifyRequest, reply: FastifyReply, sub: Subscription): SseStream => {
    const stream = new SseStream(request, reply, api.heartbeatMs, api.streams);
    stream.onClose(() => sub.close());
    return stream;
  };

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
      const from = lastEventId(request);
      // Only queues that exist: each followed queue holds a connection while followed.
      if (!(await api.store.queues()).includes(queue))
        throw new HttpError('UNKNOWN_QUEUE', `no queue named '${queue}' is known`, { queue });
      const sub = await api.hub.subscribe(queue, from);
      const stream = open(request, reply, sub);
      const send = (events: QueueEvent[]) => {
        for (const e of events) stream.send({ id: e.cursor, data: eventData(e) });
      };
      send(sub.replay);
      sub.listen(send);
    },
  );

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
        response: sseResponse,
      },
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      const { queue } = request.query as { queue?: string };
      const from = lastEventId(request);
      const first = await api.store.getJob(id, queue);
      if (!first) throw new JobNotFoundError(id, queue);
      const sub = await api.hub.subscribe(first.queue, from);
      // Read after subscribing: whatever changes after this read arrives as an event.
      let job;
      try {
        job = await api.client.get(id, { queue: first.queue });
      } catch (err) {
        sub.close();
        throw err;
      }
      if (!job) {
        sub.close();
        throw new JobNotFoundError(id, queue);
      }
      const stream = open(request, reply, sub);
      let finishing = false;
      /** Sends the final record (as of stream position `at`) and ends the stream. */
      const finish = async (at: string) => {
        if (finishing) return;
        finishing = true;
        try {
          const last = await api.client.get(id, { queue: first.queue });
          if (last) stream.send({ id: at, event: 'job', data: jobView(last) });
        } catch {
          // the client reads the record itself; the stream still ends
        }
        stream.end();
      };
      const send = (events: QueueEvent[]) => {
        for (const e of events) {
          if (e.jobId !== id || stream.closed) continue;
          stream.send({ id: e.cursor, data: eventData(e) });
          if (e.status !== undefined && FINISHED.has(e.status)) return void finish(e.cursor);
        }
      };
      if (from === undefined) stream.send({ id: sub.start, event: 'job', data: jobView(job) });
      else send(sub.replay);
      if (FINISHED.has(job.status)) {
        if (from === undefined) stream.end();
        else void finish(sub.start);
        return;
      }
      sub.listen(send);
    },
  );
}
