// A queue over time (docs/metrics.md, "Queues over time"): jobs done, failed and cancelled, the
// failure rate, and p50/p95 wait and run times per point of a 15 min, 1 h or 24 h window, from
// the minute tallies the store writes as jobs end (src/store/queueSeries.ts).

import type { FastifyInstance } from 'fastify';
import { hasMinuteTallies } from '../../store/types.js';
import { SERIES_BOUNDS, SERIES_WINDOWS, type SeriesWindow } from '../../store/queueSeries.js';
import { readQueueSeries } from '../../store/readQueueSeries.js';
import type { ApiContext } from '../ApiContext.js';
import { HttpError } from '../errorReply.js';
import { CODE } from '../../errorCodes.js';
import { bearerSecurity, errorReplies, queueParams } from '../schemas.js';

const quantiles = {
  type: ['object', 'null'],
  description: `null when no job of the point was claimed; estimated from fixed buckets (bounds 10^(k/3) ms, k = 0..20: 1, 2.15, 4.64, 10, ... ${Math.round(SERIES_BOUNDS.at(-1)!)}): off by at most the width of the bucket that holds it (a factor of 2.15)`,
  properties: {
    p50: { type: 'integer', description: 'ms' },
    p95: { type: 'integer', description: 'ms' },
    count: { type: 'integer' },
    over: { type: 'boolean', description: 'p95 is over the last bound (77 min): the value is that bound' },
  },
} as const;

const seriesReply = {
  type: 'object',
  properties: {
    queue: { type: 'string' },
    window: { type: 'string' },
    stepMs: { type: 'integer', description: 'the width of one point' },
    now: { type: 'integer', description: "the store's clock (ms since epoch)" },
    points: {
      type: 'array',
      description: 'oldest first; the last holds the current minute',
      items: {
        type: 'object',
        properties: {
          at: { type: 'integer', description: "the point's start (ms since epoch)" },
          done: { type: 'integer' },
          failed: { type: 'integer' },
          cancelled: { type: 'integer' },
          failureRate: {
            type: ['number', 'null'],
            description: 'failed / (done + failed); null when none ended',
          },
          wait: {
            ...quantiles,
            description: `created to the claim of the attempt that ended it; ${quantiles.description}`,
          },
          run: { ...quantiles, description: `that claim to the end; ${quantiles.description}` },
        },
      },
    },
  },
} as const;

export function queueSeriesRoutes(app: FastifyInstance, api: ApiContext): void {
  app.get(
    '/queues/:queue/series',
    {
      schema: {
        summary: "A queue's throughput, failure rate and p50/p95 wait and run times over a window",
        tags: ['queues'],
        security: bearerSecurity,
        params: queueParams,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            window: {
              type: 'string',
              enum: Object.keys(SERIES_WINDOWS),
              default: '15m',
              description: '15m and 1h: a point per minute; 24h: a point per 15 minutes',
            },
          },
        },
        response: { 200: seriesReply, ...errorReplies },
      },
    },
    async (request) => {
      const { queue } = request.params as { queue: string };
      const { window } = request.query as { window: SeriesWindow };
      const store = api.store;
      if (!hasMinuteTallies(store))
        throw new HttpError(CODE.INVALID_INPUT, 'this store keeps no minute tallies', { queue });
      return readQueueSeries(store, queue, window);
    },
  );
}
