// `machinist serve`: the HTTP API (createServer) on a port, until SIGTERM or SIGINT
// (runServer.ts: tokens, loopback without them, shutdown). With --jobs it knows the definitions
// (charts, input checks) without asking the registry; with --worker it also runs a supervisor
// for them in the same process.

import { Command } from 'commander';
import type { AnyDefinition } from '../../runtime/registry.js';
import { openStore, redisLabel, type GlobalOptions } from '../connect.js';
import { loadJobs } from '../loadJobs.js';
import { loadTriggers } from '../loadTriggers.js';
import { integer } from '../parseOptions.js';
import { CliError } from '../CliError.js';
import { listenAddress, runServer } from '../runServer.js';
import { webhookAllowHostsOption } from '../webhookAllowHosts.js';

interface ServeOptions {
  port?: number;
  host?: string;
  jobs?: string;
  triggers?: string;
  worker?: boolean;
  queue: string;
  concurrency: number;
  graceMs: number;
  redisTimeoutMs: number;
  /** commander's `--no-dashboard`: false leaves the dashboard out. */
  dashboard: boolean;
  dashboardActions?: boolean;
  webhookAllowHosts?: string[];
  exposeErrorStacks?: boolean;
  requestTimeoutMs?: number;
  connectionTimeoutMs?: number;
  maxConnections?: number;
}

/**
 * How long a request's Redis call keeps trying before 503: short enough that a request with
 * two calls answers within a second while Redis is down.
 */
const REDIS_TIMEOUT_MS = 400;

export function serveCommand(globals: () => GlobalOptions): Command {
  return new Command('serve')
    .description('serve the HTTP API (tokens from MACHINIST_TOKENS), until SIGTERM/SIGINT')
    .option('--port <port>', 'port to listen on (env PORT; default 8080)', integer(0))
    .option('--host <host>', 'address to listen on (env HOST; default 127.0.0.1)')
    .option('--jobs <module>', 'ESM module exporting the definitions (as for `machinist worker`)')
    .option('--worker', 'also run a supervisor for --jobs in this process')
    .option(
      '--triggers <module>',
      'ESM module exporting defineTrigger() results: POST /triggers/<name> (docs/triggers.md)',
    )
    .option('-q, --queue <name>', 'default queue (and the one --worker works)', 'default')
    .option('-c, --concurrency <n>', 'with --worker: jobs run at once', integer(1), 10)
    .option(
      '--grace-ms <ms>',
      'with --worker: how long running jobs may finish on SIGTERM',
      integer(0),
      30_000,
    )
    .option(
      '--redis-timeout-ms <ms>',
      'how long a request waits for Redis before answering 503',
      integer(1),
      REDIS_TIMEOUT_MS,
    )
    .option('--no-dashboard', 'serve the API without the web dashboard at /')
    .option('--dashboard-actions', 'let the dashboard cancel, send events and retry (default: read-only)')
    .option(
      '--expose-error-stacks',
      "show failed jobs' error stacks to every caller (default: only to write tokens)",
    )
    .option(
      '--request-timeout-ms <ms>',
      'a request (headers and body) must arrive within this, else 408 (default 30000)',
      integer(1),
    )
    .option(
      '--connection-timeout-ms <ms>',
      'a connection silent for this long is closed (default: the longest ?wait + 30000)',
      integer(1),
    )
    .option('--max-connections <n>', 'connections past this are closed at once (default 10000)', integer(1))
    .addOption(webhookAllowHostsOption())
    .action(async (opts: ServeOptions) => runServe(globals(), opts));
}

async function runServe(globals: GlobalOptions, opts: ServeOptions): Promise<void> {
  const address = listenAddress(opts);
  if (opts.worker && !opts.jobs) throw new CliError('--worker needs --jobs (the definitions it runs)');
  const jobs: AnyDefinition[] | undefined = opts.jobs ? await loadJobs(opts.jobs) : undefined;
  const triggers = opts.triggers ? await loadTriggers(opts.triggers) : undefined;
  const store = await openStore(globals, true, { commandTimeoutMs: opts.redisTimeoutMs });
  const { url, supervisor } = await runServer({
    name: 'serve',
    address,
    store,
    jobs,
    triggers,
    queue: opts.queue,
    dashboard: opts.dashboard && { actions: opts.dashboardActions === true },
    server: {
      exposeErrorStacks: opts.exposeErrorStacks === true,
      requestTimeoutMs: opts.requestTimeoutMs,
      connectionTimeoutMs: opts.connectionTimeoutMs,
      maxConnections: opts.maxConnections,
    },
    worker: opts.worker
      ? { concurrency: opts.concurrency, graceMs: opts.graceMs, webhookAllowHosts: opts.webhookAllowHosts }
      : undefined,
    close: () => store.close(),
  });
  const what = jobs
    ? `machines ${jobs.map((d) => `${d.name}@${d.version}`).join(', ')}`
    : 'machines from the registry';
  console.log(
    `machinist serve listening on ${url} (${what}${supervisor ? `, worker on queue '${opts.queue}'` : ''}; ` +
      `redis ${redisLabel(globals)} prefix '${globals.prefix}'${address.tokens.length === 0 ? '; NO AUTH: no MACHINIST_TOKENS' : ''})`,
  );
}
