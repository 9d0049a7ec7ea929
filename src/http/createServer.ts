// The HTTP API as a Fastify instance: createServer({ store, jobs }) returns it ready to
// `listen` (or to `inject` in tests), nothing started. `machinist serve` is this plus a port.
//
// Order of assembly, which matters to Fastify: the body parser and error replies, the OpenAPI
// generator (it must see every route), auth, then the routes. A plugin the caller registers on
// the returned instance (`app.register(fp(metrics))`, before `ready`/`listen`) is loaded before
// the routes' own plugin finishes, so its hooks see every route.
//
// Redis outages: every route's Redis calls go through the Client and the store's bounded
// calls, so a request fails with 503 REDIS_UNAVAILABLE once the store gives up
// (RedisStoreOptions.commandTimeoutMs; `machinist serve` uses 400 ms so that a request answers
// within 1 s), having written nothing unless the error says `maybeApplied`. A 202 is only
// ever sent after the enqueue's script has returned.

import type {
  default as FastifyFactory,
  FastifyBaseLogger,
  FastifyInstance,
  FastifyReply,
  RawServerDefault,
} from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { default as SwaggerPlugin } from '@fastify/swagger';
import { pino, type Logger } from 'pino';
import { Client } from '../client/Client.js';
import { Registry, type AnyDefinition } from '../runtime/registry.js';
import { DEFAULT_MAX_PAYLOAD_BYTES, MAX_INPUT_DEPTH } from '../runtime/inputLimits.js';
import { assertQueueName } from '../store/keys.js';
import type { Store } from '../store/types.js';
import type { ApiContext } from './ApiContext.js';
import { installAuth, parseTokenList, TokenTable, type TokenSpec } from './auth.js';
import { errorReply, installErrorReplies } from './errorReply.js';
import { stackPolicy } from './errorStacks.js';
import { EventHub } from './EventHub.js';
import { connectionLimits, type ConnectionLimitOptions } from './connectionLimits.js';
import { installJsonBody } from './jsonBody.js';
import { toOpenApi30 } from './openapi30.js';
import { errorSchema, jobSchema } from './schemas.js';
import type { SseStream } from './SseStream.js';
import { chartRoutes } from './routes/charts.js';
import { deadLetterRoutes } from './routes/deadLetters.js';
import { healthRoutes } from './routes/health.js';
import { jobRoutes } from './routes/jobs.js';
import { jobSearchRoutes } from './routes/jobSearch.js';
import { workerRoutes } from './routes/workers.js';
import { liveRoutes } from './routes/live.js';
import { machineRoutes } from './routes/machines.js';
import { queueRoutes } from './routes/queues.js';
import { openTriggerRoutes, triggerRoutes } from './routes/triggers.js';
import type { TriggerDefinition } from '../triggers/defineTrigger.js';
import { scheduleRoutes } from './routes/schedules.js';
import { scheduleActionRoutes } from './routes/scheduleActions.js';
import { queueFlowRoutes } from './routes/queueFlow.js';
import { MachinistMetrics } from '../metrics/MachinistMetrics.js';
import { registerMetrics } from '../metrics/metricsPlugin.js';
import {
  dashboardPlugin,
  DASHBOARD_OPEN_ROUTES,
  type DashboardOptions,
} from '../dashboard/dashboardPlugin.js';

export interface ServerOptions extends ConnectionLimitOptions {
  store: Store;
  /**
   * Declared HTTP triggers (defineTrigger, docs/triggers.md): `POST /triggers/<name>` enqueues
   * its machine with the request's body, checking the sender's signature when it declares one.
   */
  triggers?: readonly TriggerDefinition[];
  /** Definitions the server knows (names, input checks, charts) without asking the registry. */
  jobs?: readonly AnyDefinition[];
  /** Queue for requests that name none. Default 'default'. */
  queue?: string;
  /**
   * Bearer tokens: `'secret'` (read and write), or `{ token, scopes: ['read'] }`. Default: the
   * MACHINIST_TOKENS environment variable (`secret,other:read`). Without any, createServer
   * refuses unless `auth: false`.
   */
  tokens?: readonly (string | TokenSpec)[];
  /** `false` serves without auth (a loopback-only server, tests). */
  auth?: boolean;
  /** Route URLs answered without a token. Default ['/healthz', '/metrics']. */
  openRoutes?: readonly string[];
  /** Largest request body, bytes (413 past it). Default 1 MiB. */
  bodyLimit?: number;
  /** Deepest nesting of a request body. Default 1,001: an input at the runtime's limit plus the body. */
  maxDepth?: number;
  /** Longest `?wait` on POST /jobs. Default 120 s. */
  maxWaitMs?: number;
  /** How often an idle live stream gets a comment (keeps proxies from closing it). Default 15 s. */
  heartbeatMs?: number;
  // requestTimeoutMs, connectionTimeoutMs, maxConnections: ConnectionLimitOptions (connectionLimits.ts).
  /** A pino logger, or false for none. Default: pino at MACHINIST_LOG (default 'warn'). */
  logger?: Logger | false;
  /**
   * The web dashboard at `/` (read-only unless `actions: true`); `false` leaves it out. Its page
   * and files are served without a token, its data through the same auth as the API.
   */
  dashboard?: false | Pick<DashboardOptions, 'actions' | 'title'>;
  /**
   * GET /metrics (Prometheus; open unless removed from openRoutes) and the HTTP request series:
   * this MachinistMetrics (share it with an in-process Supervisor's `observers`), or false for
   * none. Default: one of the server's own, with the store's queue depths (serverMetrics(app)).
   */
  metrics?: MachinistMetrics | false;
  /**
   * Show failed jobs' error stacks (server file paths) to every caller. Default false: only to
   * callers with a write token (and on a server without auth), read-only tokens get none.
   */
  exposeErrorStacks?: boolean;
}

const metricsOf = new WeakMap<FastifyInstance, MachinistMetrics>();

/** The MachinistMetrics a server made by createServer serves (undefined with metrics: false). */
export function serverMetrics(app: FastifyInstance): MachinistMetrics | undefined {
  return metricsOf.get(app);
}

const DEFAULT_OPEN_ROUTES = ['/healthz', '/metrics'];

/**
 * Builds the HTTP API (not listening). Close it with `app.close()`: live streams are ended
 * first; the store is the caller's to close.
 * @example
 * const app = createServer({ store, jobs: [resize], tokens: [process.env.API_TOKEN!] });
 * await app.listen({ port: 8080, host: '127.0.0.1' });
 */
export function createServer(options: ServerOptions): FastifyInstance {
  if (!options?.store) throw new TypeError('createServer: store is required');
  const tokens = options.tokens ?? parseTokenList(process.env.MACHINIST_TOKENS ?? '');
  const auth = options.auth ?? true;
  if (auth && tokens.length === 0)
    throw new TypeError('createServer: no tokens (pass tokens, set MACHINIST_TOKENS, or pass auth: false)');
  const table = auth ? new TokenTable(tokens) : undefined;
  const queue = options.queue ?? 'default';
  assertQueueName(queue);
  const bodyLimit = options.bodyLimit ?? DEFAULT_MAX_PAYLOAD_BYTES;
  const maxWaitMs = options.maxWaitMs ?? 120_000;
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const limits = connectionLimits(options, maxWaitMs, heartbeatMs);

  const app = newFastify(options.logger, bodyLimit, limits);
  app.server.maxConnections = limits.maxConnections;

  const api: ApiContext = {
    store: options.store,
    // Untyped: the API takes any name and input, checked at run time like a registry client's.
    client: new Client<never>({ store: options.store, jobs: options.jobs as never, queue }),
    local: options.jobs ? new Registry(options.jobs) : undefined,
    hub: new EventHub(options.store, {
      onError: (err, q) => app.log.warn({ err, queue: q }, 'event stream read failed; retrying'),
    }),
    streams: new Set<SseStream>(),
    defaultQueue: queue,
    maxWaitMs,
    heartbeatMs,
    showStacks: stackPolicy({ expose: options.exposeErrorStacks === true, auth }),
  };

  installJsonBody(app, options.maxDepth ?? MAX_INPUT_DEPTH + 1);
  installErrorReplies(app, bodyLimit);
  app.addSchema(errorSchema);
  app.addSchema(jobSchema);
  registerOpenApi(app);
  const triggers = checkedTriggers(options.triggers);
  const openRoutes = [...(options.openRoutes ?? DEFAULT_OPEN_ROUTES), ...openTriggerRoutes(triggers)];
  if (options.dashboard !== false) openRoutes.push(...DASHBOARD_OPEN_ROUTES);
  if (table) installAuth(app, table, new Set(openRoutes));
  const metrics = options.metrics ?? new MachinistMetrics({ store: options.store });
  if (metrics) {
    // Not encapsulated: its response hook sees every route. Auth is the open-routes list's.
    registerMetrics(app, { metrics });
    metricsOf.set(app, metrics);
  }
  void app.register(async (routes) => {
    jobSearchRoutes(routes, api);
    jobRoutes(routes, api);
    liveRoutes(routes, api);
    deadLetterRoutes(routes, api);
    machineRoutes(routes, api);
    chartRoutes(routes, api);
    queueRoutes(routes, api);
    workerRoutes(routes, api);
    scheduleRoutes(routes, api);
    scheduleActionRoutes(routes, api);
    queueFlowRoutes(routes, api);
    healthRoutes(routes, api);
  });
  // Its own context: its body parser keeps the raw bytes the signatures cover.
  void app.register(async (routes) =>
    triggerRoutes(routes, api, triggers, options.maxDepth ?? MAX_INPUT_DEPTH + 1),
  );
  if (options.dashboard !== false)
    void app.register(dashboardPlugin, {
      ...options.dashboard,
      store: options.store,
      jobs: options.jobs,
      showStacks: api.showStacks,
    });

  // Live streams never end by themselves: end them, or close() would wait for them.
  app.addHook('preClose', (done) => {
    for (const s of [...api.streams]) s.end();
    api.hub.close();
    done();
  });
  app.addHook('onClose', (_instance, done) => {
    api.client.close();
    done();
  });
  return app;
}

/** The triggers, each made by defineTrigger, under distinct names (TypeError otherwise, at startup). */
function checkedTriggers(list: readonly TriggerDefinition[] | undefined): readonly TriggerDefinition[] {
  const seen = new Set<string>();
  for (const t of list ?? []) {
    if ((t as { kind?: unknown })?.kind !== 'trigger')
      throw new TypeError('createServer: each of triggers must be made by defineTrigger()');
    if (seen.has(t.name)) throw new TypeError(`createServer: two triggers are named '${t.name}'`);
    seen.add(t.name);
  }
  return list ?? [];
}

const require = createRequire(import.meta.url);
let loaded: { Fastify: typeof FastifyFactory; swagger: typeof SwaggerPlugin } | undefined;

/**
 * fastify and @fastify/swagger, required at the first createServer() rather than imported with
 * this module: every process that imports Machinist imported them (about 0.3-0.5 s of a 2-core
 * machine's time), and most never serve HTTP (a worker, a producer, the ~150 test files that
 * run no server). Both are CommonJS, so the load stays synchronous, as createServer is.
 */
function fastifyModules(): NonNullable<typeof loaded> {
  loaded ??= {
    Fastify: (require('fastify') as { default: typeof FastifyFactory }).default,
    swagger: (require('@fastify/swagger') as { default: typeof SwaggerPlugin }).default,
  };
  return loaded;
}

/** The Fastify instance: its logger, limits, body and error handling before any route. */
function newFastify(
  loggerOption: ServerOptions['logger'],
  bodyLimit: number,
  limits: ReturnType<typeof connectionLimits>,
): FastifyInstance {
  const logger =
    loggerOption === false
      ? undefined
      : (loggerOption ?? pino({ name: 'machinist-http', level: process.env.MACHINIST_LOG ?? 'warn' }));
  const { Fastify } = fastifyModules();
  // Fastify's instance type follows its logger's; the API's routes take the base one.
  return Fastify({
    ...(logger ? { loggerInstance: logger } : { logger: false }),
    bodyLimit,
    requestTimeout: limits.requestTimeoutMs,
    connectionTimeout: limits.connectionTimeoutMs,
    http: { headersTimeout: limits.headersTimeoutMs, connectionsCheckingInterval: limits.checkIntervalMs },
    // Unknown body fields are refused (400 naming them), not silently dropped.
    ajv: { customOptions: { removeAdditional: false } },
    return503OnClosing: true,
    // What the router refuses before any route (a bad percent-escape, an over-long parameter)
    // gets the one error shape too.
    frameworkErrors: (err, _request, reply: FastifyReply) => {
      const { status, body } = errorReply(err, bodyLimit);
      void reply.code(status).send(body);
    },
  }) as unknown as FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger>;
}

/** The OpenAPI document (GET /openapi.json, routes/health.ts), built from the routes' schemas. */
function registerOpenApi(app: FastifyInstance): void {
  void app.register(fastifyModules().swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Machinist',
        description: 'Submit and follow durable jobs (XState machines persisted in Redis).',
        version: '1',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
    // The routes' draft-07 schemas, said the OpenAPI 3.0 way (openapi30.ts).
    transformObject: (doc) => toOpenApi30('openapiObject' in doc ? doc.openapiObject : doc.swaggerObject),
    refResolver: {
      buildLocalReference: (json, _base, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
  });
}
