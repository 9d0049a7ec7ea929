// POST /jobs/batch: many jobs in one request (BullMQ's addBulk over HTTP), stored by the Client's
// enqueueMany (one store call per queue, nothing written when any job is refused), and with
// `?wait` held until every job finishes or the wait passes, as POST /jobs holds one.

import type { FastifyInstance } from 'fastify';
import type { EnqueueInfo } from '../../client/clientOptions.js';
import type { ApiContext } from '../ApiContext.js';
import { HttpError } from '../errorReply.js';
import { jobView } from '../../client/recordView.js';
import { parseWait } from '../parseWait.js';
import { enqueueArgsOf, type EnqueueBody } from '../enqueueBody.js';
import { notSeenFinishing, whileConnected } from '../clientWait.js';
import { batchBody, batchReply, bearerSecurity, bodyErrorReplies, enqueueQuery } from '../schemas.js';
import { CODE } from '../../errorCodes.js';

/** One job of the answer: its id, and `deduplicated: true` when a key kept an existing job. */
const storedJob = (info: EnqueueInfo) =>
  info.deduplicated ? { job_id: info.id, deduplicated: true } : { job_id: info.id };

export function batchJobRoute(app: FastifyInstance, api: ApiContext): void {
  app.post(
    '/jobs/batch',
    {
      schema: {
        summary: 'Submit many jobs at once',
        description:
          'Each job is a POST /jobs body; the answer lists their ids in the order sent (`deduplicated: true` where a dedupe or idempotency key kept an existing job). All or nothing: a job refused anywhere in the batch is a 400 naming it (`index`, or `jobs.<n>` in `field`) and no job is written. With `?wait`, holds the request until every job finishes (200, each with its record in `job`) or the wait passes (202, each saying whether it `finished`). Idempotency is per job (`idempotencyKey`): the Idempotency-Key header is refused here.',
        tags: ['jobs'],
        security: bearerSecurity,
        querystring: enqueueQuery,
        body: batchBody,
        response: { 200: batchReply, 202: batchReply, ...bodyErrorReplies },
      },
    },
    async (request, reply) => {
      // One header cannot key many jobs: a retried batch is made safe by each job's own key.
      if (request.headers['idempotency-key'] !== undefined)
        throw new HttpError(
          CODE.INVALID_INPUT,
          'POST /jobs/batch takes an idempotencyKey on each job, not the Idempotency-Key header',
          { field: 'Idempotency-Key' },
        );
      const items = (request.body as { jobs: EnqueueBody[] }).jobs.map(enqueueArgsOf);
      const { wait } = request.query as { wait?: string };
      // Checked before the jobs are made: a bad wait writes nothing.
      const waitMs = wait === undefined ? undefined : parseWait(wait, api.maxWaitMs);
      if (waitMs === undefined || waitMs === 0) {
        const infos = await api.client.enqueueManyWithInfo(items);
        return reply.code(202).send({ jobs: infos.map(storedJob) });
      }
      // A client that leaves ends the waits of all its jobs.
      const connected = whileConnected(reply);
      try {
        // Every job made with the wait's watch on it (one step per queue), as POST /jobs?wait.
        const infos = await api.client.enqueueManyAndWaitWithInfo(items, {
          timeoutMs: waitMs,
          signal: connected.signal,
        });
        const ends = await Promise.allSettled(infos.map((i) => i.result));
        for (const end of ends)
          if (end.status === 'rejected' && !notSeenFinishing(end.reason)) throw end.reason;
        const stacks = api.showStacks(request);
        const jobs = infos.map((info, i) => {
          const end = ends[i]!;
          return end.status === 'fulfilled'
            ? { ...storedJob(info), finished: true, job: jobView(end.value, stacks) }
            : { ...storedJob(info), finished: false };
        });
        // The jobs are stored either way: any not seen finishing makes it a 202.
        return reply.code(jobs.every((j) => j.finished) ? 200 : 202).send({ jobs });
      } finally {
        connected.release();
      }
    },
  );
}
