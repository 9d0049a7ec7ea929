// The dashboard as a Fastify plugin: the page, its browser files, and the few JSON routes the
// API does not have (queue overview, a job's view with its chart marks, children pages, chart
// SVGs, machine heat maps). Everything else (job lists, records, streams, actions) the page
// reads from the HTTP API itself, with the same bearer token as any other client.

import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { MachinistError } from '../errors.js';
import type { AnyDefinition } from '../runtime/registry.js';
import type { Store } from '../store/types.js';
import { readAsset } from './assets.js';
import type { ChartKit } from './chartKit.js';
import { childrenPage } from './childrenPage.js';
import { Definitions } from './definitions.js';
import { jobView } from './jobView.js';
import { machineHeat } from './machineHeat.js';
import { provisionalChartKit } from './provisionalChartKit.js';
import { queueOverview } from './queueOverview.js';
import { ASSETS_PATH, DASHBOARD_API, shellHtml } from './shell.js';

export interface DashboardOptions {
  store: Store;
  /** Definitions the server knows (as `machinist serve --jobs`): their charts, every version. */
  jobs?: readonly AnyDefinition[];
  /**
   * Offer actions (cancel, send event, retry) in the page. Default false: read-only. The API
   * still decides with its own auth; this only hides what an operator should not be offered.
   */
  actions?: boolean;
  /** Run before each of the dashboard's JSON routes (the API's auth); the page and files are open. */
  authorize?: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  title?: string;
  /** Overrides the chart module (tests). */
  chartKit?: ChartKit;
}

const STATUS_BY_CODE: Record<string, number> = {
  JOB_NOT_FOUND: 404,
  INVALID_INPUT: 400,
  UNKNOWN_MACHINE: 404,
  REDIS_UNAVAILABLE: 503,
};

export const dashboardPlugin: FastifyPluginAsync<DashboardOptions> = async (app, options) => {
  const { store } = options;
  const definitions = new Definitions(store, options.jobs ?? []);
  const kit = options.chartKit ?? provisionalChartKit;
  const readOnly = options.actions !== true;
  const title = options.title ?? 'Machinist';
  const html = shellHtml(title);

  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, _req, reply) => {
    const status =
      err instanceof MachinistError ? (STATUS_BY_CODE[err.code] ?? 500) : (err.statusCode ?? 500);
    if (status >= 500) app.log.error(err);
    void reply.code(status).send({ error: err.code ?? 'INTERNAL', message: err.message });
  });

  const page = async (_req: FastifyRequest, reply: FastifyReply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header(
        'content-security-policy',
        "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; object-src 'none'; base-uri 'none'",
      )
      .send(html);
  app.get('/', page);
  app.get('/dashboard', page);

  app.get<{ Params: { name: string } }>(`${ASSETS_PATH}/:name`, async (req, reply) => {
    const asset = await readAsset(req.params.name);
    if (!asset)
      return reply.code(404).send({ error: 'NOT_FOUND', message: `no dashboard file ${req.params.name}` });
    return reply.type(asset.contentType).header('cache-control', 'no-cache').send(asset.body);
  });

  // The JSON routes sit in a context of their own, so the API's auth runs before each of them.
  await app.register(async (api) => {
    if (options.authorize) api.addHook('onRequest', options.authorize);

    api.get(`${DASHBOARD_API}/config`, async () => ({
      readOnly,
      title,
      queues: (await store.queues()).sort(),
      machines: await definitions.list(),
    }));

    api.get<{ Querystring: { minutes?: string } }>(`${DASHBOARD_API}/overview`, async (req) =>
      queueOverview(store, boundedInt(req.query.minutes, 'minutes', 15, 1, 120)),
    );

    api.get<{ Params: { id: string }; Querystring: { at?: string } }>(
      `${DASHBOARD_API}/jobs/:id/view`,
      async (req) => {
        const at = req.query.at === undefined ? null : boundedInt(req.query.at, 'at', 0, 0, 1_000_000);
        return jobView(store, definitions, kit, req.params.id, at, readOnly);
      },
    );

    api.get<{ Params: { id: string }; Querystring: { cursor?: string; limit?: string } }>(
      `${DASHBOARD_API}/jobs/:id/children`,
      async (req) => {
        const limit = boundedInt(req.query.limit, 'limit', 50, 1, 500);
        const charts = new Map<string, unknown>();
        const page = await childrenPage(store, req.params.id, req.query.cursor, limit, () => null);
        // Each child machine's definition once per page, then each child's active states.
        for (const row of page.jobs) {
          const key = `${row.machine}@${row.version}`;
          if (!charts.has(key)) charts.set(key, await definitions.get(row.machine, row.version));
          const def = charts.get(key);
          row.active = def ? kit.activeIds(def, row.state) : null;
        }
        return page;
      },
    );

    api.get<{ Params: { machine: string; file: string } }>(
      `${DASHBOARD_API}/charts/:machine/:file`,
      async (req, reply) => {
        const version = Number(/^(\d+)\.svg$/.exec(req.params.file)?.[1]);
        const definition = await requireDefinition(req.params.machine, version);
        const svg = await kit.svg(definition, `${req.params.machine}@${version}`);
        return reply.type('image/svg+xml').header('cache-control', 'no-cache').send(svg);
      },
    );

    api.get<{ Params: { machine: string; version: string } }>(
      `${DASHBOARD_API}/machines/:machine/:version/heat`,
      async (req) => {
        const version = boundedInt(req.params.version, 'version', 1, 1, Number.MAX_SAFE_INTEGER);
        const definition = await requireDefinition(req.params.machine, version);
        return machineHeat(store, kit, definition, req.params.machine, version);
      },
    );
  });

  async function requireDefinition(machine: string, version: number): Promise<unknown> {
    const definition = Number.isInteger(version) ? await definitions.get(machine, version) : null;
    if (!definition) {
      throw new MachinistError('UNKNOWN_MACHINE', `no chart for machine '${machine}' version ${version}`, {
        machine,
      });
    }
    return definition;
  }
};

function boundedInt(
  text: string | undefined,
  field: string,
  fallback: number,
  min: number,
  max: number,
): number {
  if (text === undefined || text === '') return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new MachinistError(
      'INVALID_INPUT',
      `${field}: must be an integer from ${min} to ${max}, got ${JSON.stringify(text)}`,
      {
        field,
      },
    );
  }
  return n;
}
