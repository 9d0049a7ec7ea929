// The dashboard as a Fastify plugin: the page, its browser files, and the few JSON routes the
// API does not have (queue overview, a job's view with its chart marks, children pages, chart
// SVGs, machine heat maps). Everything else (job lists, records, streams, actions) the page
// reads from the HTTP API itself, with the same bearer token as any other client.

import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Client } from '../client/Client.js';
import { MachinistError } from '../errors.js';
import type { AnyDefinition } from '../runtime/registry.js';
import type { JobRecord, Store } from '../store/types.js';
import { readAsset } from './assets.js';
import { chartDiff } from '../chart/chartDiff.js';
import { chartSvg, jobLeafStates } from './chartKit.js';
import { childrenPage } from './childrenPage.js';
import { Definitions, type ChartSource } from './definitions.js';
import { invokedGraph } from './invokedMachines.js';
import { jobPageView } from './jobPageView.js';
import { machineHeat } from './machineHeat.js';
import { queueOverview } from './queueOverview.js';
import { ASSETS_PATH, DASHBOARD_API, shellHtml } from './shell.js';
import { CODE } from '../errorCodes.js';

export interface DashboardOptions {
  store: Store;
  /** Definitions the server knows (as `machinist serve --jobs`): their charts, every version. */
  jobs?: readonly AnyDefinition[];
  /**
   * Offer actions (cancel, send event, retry) in the page. Default false: read-only. The API
   * still decides with its own auth; this only hides what an operator should not be offered.
   */
  actions?: boolean;
  title?: string;
  /** Whether a request is shown failed jobs' error stacks (the API's rule; default: yes). */
  showStacks?: (request: FastifyRequest) => boolean;
}

/**
 * The routes anyone may load without a token: the page and its files hold no data. Every
 * JSON route of the dashboard goes through the API's auth like the API's own.
 */
export const DASHBOARD_OPEN_ROUTES: readonly string[] = ['/', '/dashboard', `${ASSETS_PATH}/:name`];

/**
 * Serves the dashboard at `/`; createServer registers it (errors are answered by the API's
 * error replies, auth by its hook).
 * @example app.register(dashboardPlugin, { store, jobs, actions: true })
 */
export const dashboardPlugin: FastifyPluginAsync<DashboardOptions> = async (app, options) => {
  const { store } = options;
  const client = new Client<never>({ store });
  app.addHook('onClose', async () => client.close());
  const dash: Dashboard = {
    store,
    client,
    definitions: new Definitions(store, options.jobs ?? []),
    readOnly: options.actions !== true,
    title: options.title ?? 'Machinist',
    showStacks: options.showStacks,
  };
  pageRoutes(app, dash.title);
  jobRoutes(app, dash);
  chartRoutes(app, dash);
};

/** What the dashboard's routes share. */
interface Dashboard {
  store: Store;
  client: Client<never>;
  definitions: Definitions;
  readOnly: boolean;
  title: string;
  showStacks: DashboardOptions['showStacks'];
}

/** Not in the OpenAPI document: the dashboard's routes are its own, not the API's. */
const hidden = { schema: { hide: true } };

/** The page (at `/` and `/dashboard`) and its browser files: no data, open to anyone. */
function pageRoutes(app: FastifyInstance, title: string): void {
  const html = shellHtml(title);
  const page = async (_req: FastifyRequest, reply: FastifyReply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header(
        'content-security-policy',
        "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; object-src 'none'; base-uri 'none'",
      )
      .send(html);
  app.get('/', hidden, page);
  app.get('/dashboard', hidden, page);

  app.get<{ Params: { name: string } }>(`${ASSETS_PATH}/:name`, hidden, async (req, reply) => {
    const asset = await readAsset(req.params.name);
    if (!asset)
      throw new MachinistError(CODE.NOT_FOUND, `no dashboard file named ${JSON.stringify(req.params.name)}`);
    return reply.type(asset.contentType).header('cache-control', 'no-cache').send(asset.body);
  });
}

/** The page's settings, the queue overview, and a job's view and children. */
function jobRoutes(app: FastifyInstance, dash: Dashboard): void {
  const { store, client, definitions, readOnly, title } = dash;
  app.get(`${DASHBOARD_API}/config`, hidden, async () => ({
    readOnly,
    title,
    queues: (await store.queues()).sort(),
    machines: await definitions.list(),
  }));

  app.get<{ Querystring: { minutes?: string } }>(`${DASHBOARD_API}/overview`, hidden, async (req) =>
    queueOverview(store, boundedInt(req.query.minutes, 'minutes', 15, 1, 120)),
  );

  app.get<{ Params: { id: string }; Querystring: { at?: string } }>(
    `${DASHBOARD_API}/jobs/:id/view`,
    hidden,
    async (req) => {
      const at = req.query.at === undefined ? null : boundedInt(req.query.at, 'at', 0, 0, 1_000_000);
      const stacks = dash.showStacks?.(req) ?? true;
      return jobPageView(store, client, definitions, req.params.id, at, readOnly, stacks);
    },
  );

  app.get<{ Params: { id: string }; Querystring: { cursor?: string; limit?: string } }>(
    `${DASHBOARD_API}/jobs/:id/children`,
    hidden,
    async (req) => {
      const limit = boundedInt(req.query.limit, 'limit', 50, 1, 500);
      const sources = new Map<string, ChartSource | null>();
      const page = await childrenPage(store, client, req.params.id, req.query.cursor, limit);
      // Each child machine's chart once per page, then each child's states on it.
      for (const row of page.jobs) {
        const key = `${row.job.machine}@${row.job.version}`;
        if (!sources.has(key)) sources.set(key, await definitions.get(row.job.machine, row.job.version));
        const source = sources.get(key);
        row.active = source ? jobLeafStates(source.graph, row.job) : null;
      }
      return { ...page, jobs: page.jobs.map(({ job, active }) => ({ ...childSummary(job), active })) };
    },
  );
}

/** A machine's chart as SVG (or the chart of a machine it invokes), and its heat map. */
function chartRoutes(app: FastifyInstance, { store, definitions }: Dashboard): void {
  app.get<{ Params: { machine: string; file: string }; Querystring: { invoked?: string } }>(
    `${DASHBOARD_API}/charts/:machine/:file`,
    hidden,
    async (req, reply) => {
      const version = Number(/^(\d+)\.svg$/.exec(req.params.file)?.[1]);
      let source = await requireChart(definitions, req.params.machine, version);
      // ?invoked=<state id>:<invoke id>: the chart of the machine that state invokes.
      if (req.query.invoked !== undefined) {
        const graph = invokedGraph(source.graph, req.query.invoked);
        if (!graph) {
          throw new MachinistError(
            CODE.NOT_FOUND,
            `machine '${req.params.machine}' version ${version} invokes no machine at ${JSON.stringify(req.query.invoked)}`,
            { machine: req.params.machine },
          );
        }
        source = { graph };
      }
      return reply
        .type('image/svg+xml')
        .header('cache-control', 'no-cache')
        .send(await chartSvg(source));
    },
  );

  app.get<{ Params: { machine: string; version: string } }>(
    `${DASHBOARD_API}/machines/:machine/:version/heat`,
    hidden,
    async (req) => {
      const version = boundedInt(req.params.version, 'version', 1, 1, Number.MAX_SAFE_INTEGER);
      return machineHeat(store, (await requireChart(definitions, req.params.machine, version)).graph);
    },
  );

  // The states two versions add, remove and rename (src/chart/chartDiff.ts).
  app.get<{ Params: { machine: string }; Querystring: { from?: string; to?: string } }>(
    `${DASHBOARD_API}/machines/:machine/diff`,
    hidden,
    async (req) => {
      const [from, to] = (['from', 'to'] as const).map((f) =>
        boundedInt(req.query[f], f, 1, 1, Number.MAX_SAFE_INTEGER),
      );
      const a = await requireChart(definitions, req.params.machine, from!);
      const b = await requireChart(definitions, req.params.machine, to!);
      return chartDiff(a.graph, b.graph);
    },
  );
}

async function requireChart(
  definitions: Definitions,
  machine: string,
  version: number,
): Promise<ChartSource> {
  const source = Number.isInteger(version) ? await definitions.get(machine, version) : null;
  if (!source) {
    throw new MachinistError(CODE.NOT_FOUND, `no chart for machine '${machine}' version ${version}`, {
      machine,
    });
  }
  return source;
}

function childSummary(j: JobRecord) {
  return {
    id: j.id,
    queue: j.queue,
    status: j.status,
    machine: j.machine,
    version: j.version,
    state: j.state,
  };
}

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
      CODE.INVALID_INPUT,
      `${field}: must be an integer from ${min} to ${max}, got ${JSON.stringify(text)}`,
      { field },
    );
  }
  return n;
}
