// GET /jobs/search: finds jobs by id prefix, machine, status, state, time range and fields of
// their input, context or output, a bounded scan at a time (store/search/searchPages.ts). A bad
// query is a 400 INVALID_INPUT naming the parameter at fault.

import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../ApiContext.js';
import { HttpError } from '../errorReply.js';
import { jobView } from '../../client/recordView.js';
import { bearerSecurity, errorReplies, ref, STATUSES } from '../schemas.js';
import { hasJobSearch, type JobStatus } from '../../store/types.js';
import {
  FILTER_OPS,
  FILTER_ROOTS,
  parseFilter,
  SCAN_LIMIT,
  SEARCH_LIMIT,
} from '../../store/search/searchQuery.js';
import { CODE } from '../../errorCodes.js';

const ms = { type: 'integer', minimum: 0 } as const;

export const searchQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    queue: { type: 'string', pattern: '^[A-Za-z0-9._:#-]{1,110}$', description: 'absent: every queue' },
    idPrefix: { type: 'string', minLength: 1, maxLength: 200 },
    machine: { type: 'string', minLength: 1, maxLength: 100 },
    status: { type: 'string', enum: STATUSES },
    state: { type: 'string', minLength: 1, maxLength: 500, description: 'a state path or a prefix of one' },
    createdFrom: ms,
    createdTo: ms,
    updatedFrom: ms,
    updatedTo: ms,
    where: {
      type: 'array',
      maxItems: 10,
      items: { type: 'string', minLength: 1, maxLength: 1000 },
      description: `\`<path> <op> <value>\`, repeated (all must hold). Path from ${FILTER_ROOTS.join(', ')}; op one of ${FILTER_OPS.join(' ')}; value JSON or text.`,
    },
    limit: { type: 'integer', minimum: 1, maximum: SEARCH_LIMIT.max },
    scanLimit: { type: 'integer', minimum: 1, maximum: SCAN_LIMIT.max },
    cursor: { type: 'string', maxLength: 200 },
  },
} as const;

type SearchParams = {
  queue?: string;
  idPrefix?: string;
  machine?: string;
  status?: JobStatus;
  state?: string;
  createdFrom?: number;
  createdTo?: number;
  updatedFrom?: number;
  updatedTo?: number;
  where?: string[];
  limit?: number;
  scanLimit?: number;
  cursor?: string;
};

export function jobSearchRoutes(app: FastifyInstance, api: ApiContext): void {
  app.get(
    '/jobs/search',
    {
      schema: {
        summary: 'Find jobs (a bounded scan with a cursor)',
        description:
          'Walks the status indexes newest first, reading at most `scanLimit` records (default 1000) and answering at most `limit` matches (default 50). Pass `cursor` back to continue; it is null once every index was walked. `scanned` says how many records this call read. No index is kept for searches (Redis 7.0 has no Query Engine): a search costs nothing until made.',
        tags: ['jobs'],
        security: bearerSecurity,
        querystring: searchQuerySchema,
        response: {
          200: {
            type: 'object',
            required: ['jobs', 'cursor', 'scanned', 'engine'],
            properties: {
              jobs: { type: 'array', items: ref('Job') },
              cursor: { type: ['string', 'null'] },
              scanned: { type: 'integer' },
              engine: { type: 'string', enum: ['scan'] },
            },
          },
          ...errorReplies,
        },
      },
    },
    async (request) => {
      if (!hasJobSearch(api.store))
        throw new HttpError(CODE.NOT_FOUND, `the ${api.store.kind} store cannot search jobs`);
      const { where, ...rest } = request.query as SearchParams;
      const page = await api.store.searchJobs({ ...rest, where: where?.map(parseFilter) });
      const stacks = api.showStacks(request);
      return { ...page, jobs: page.jobs.map((j) => jobView(j, stacks)) };
    },
  );
}
