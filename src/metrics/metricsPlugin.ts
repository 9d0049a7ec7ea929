// Machinist's metrics on a Fastify app: an onResponse hook counts every response under its
// route's pattern (never the raw URL, so ids in paths add no label values), and GET /metrics
// answers in the Prometheus text format.

import type { FastifyInstance, FastifyPluginAsync, FastifySchema, preHandlerAsyncHookHandler } from 'fastify';
import type { MachinistMetrics } from './MachinistMetrics.js';

export interface MetricsPluginOptions {
  metrics: MachinistMetrics;
  /** Where the metrics are served. Default '/metrics'. */
  path?: string;
  /**
   * Serve the metrics without authentication. Default true. When false, `authenticate` runs
   * before the handler (the server's bearer-token check).
   */
  open?: boolean;
  authenticate?: preHandlerAsyncHookHandler;
}

/** Kept out of the OpenAPI document (@fastify/swagger reads `hide`). */
const HIDDEN = { hide: true } as FastifySchema;

/**
 * Adds the HTTP series and GET /metrics to `app` (on its root context: the hook sees every
 * route registered anywhere in the app).
 * @example registerMetrics(app, { metrics, open: true });
 */
export function registerMetrics(app: FastifyInstance, options: MetricsPluginOptions): void {
  const { metrics } = options;
  if (!metrics || typeof metrics.observeHttpRequest !== 'function')
    throw new TypeError('registerMetrics: options.metrics must be a MachinistMetrics');
  const path = options.path ?? '/metrics';
  const open = options.open ?? true;
  if (!open && !options.authenticate)
    throw new TypeError('registerMetrics: open: false needs an authenticate preHandler');
  app.addHook('onResponse', async (request, reply) => {
    metrics.observeHttpRequest(
      request.routeOptions.url,
      request.method,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
  });
  app.get(
    path,
    { ...(open ? {} : { preHandler: options.authenticate }), schema: HIDDEN },
    async (_request, reply) => {
      const text = await metrics.text();
      return reply.type(metrics.contentType).send(text);
    },
  );
}

/**
 * registerMetrics as a Fastify plugin (not encapsulated: its hook applies to the whole app).
 * @example await app.register(metricsPlugin, { metrics });
 */
export const metricsPlugin: FastifyPluginAsync<MetricsPluginOptions> = async (app, options) =>
  registerMetrics(app, options);
// What fastify-plugin sets: the plugin runs in its parent's context, not a child of it.
(metricsPlugin as unknown as Record<symbol, unknown>)[Symbol.for('skip-override')] = true;
