// `machinist serve`: the HTTP API (createServer) on a port, until SIGTERM or SIGINT. With
// --jobs it knows the definitions (charts, input checks) without asking the registry; with
// --worker it also runs a supervisor for them in the same process.
//
// Tokens come from MACHINIST_TOKENS. Without any, it serves only on a loopback address (and
// says so): an API that can enqueue and cancel jobs is never left open on a network by default.
//
// Shutdown: the first signal closes the server (live streams end, requests in flight finish),
// stops the supervisor with --grace-ms, closes the store and exits 0; a second exits at once.

import { Command } from 'commander';
import { createServer, serverMetrics } from '../../http/createServer.js';
import { parseTokenList } from '../../http/auth.js';
import { Supervisor } from '../../supervisor/Supervisor.js';
import type { AnyDefinition } from '../../runtime/registry.js';
import { openStore, safeUrl, type GlobalOptions } from '../connect.js';
import { loadJobs } from '../loadJobs.js';
import { integer } from '../parseOptions.js';
import { CliError } from '../CliError.js';
import { EXIT_FORCED } from './worker.js';

interface ServeOptions {
  port?: number;
  host?: string;
  jobs?: string;
  worker?: boolean;
  queue: string;
  concurrency: number;
  graceMs: number;
  redisTimeoutMs: number;
  /** commander's `--no-dashboard`: false leaves the dashboard out. */
  dashboard: boolean;
  dashboardActions?: boolean;
}

/**
 * How long a request's Redis call keeps trying before 503: short enough that a request with
 * two calls answers within a second while Redis is down.
 */
const REDIS_TIMEOUT_MS = 400;
const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export function serveCommand(globals: () => GlobalOptions): Command {
  return new Command('serve')
    .description('serve the HTTP API (tokens from MACHINIST_TOKENS), until SIGTERM/SIGINT')
    .option('--port <port>', 'port to listen on (env PORT; default 8080)', integer(0))
    .option('--host <host>', 'address to listen on (env HOST; default 127.0.0.1)')
    .option('--jobs <module>', 'ESM module exporting the definitions (as for `machinist worker`)')
    .option('--worker', 'also run a supervisor for --jobs in this process')
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
    .action(async (opts: ServeOptions) => runServe(globals(), opts));
}

function portFrom(opts: ServeOptions): number {
  if (opts.port !== undefined) return opts.port;
  const env = process.env.PORT;
  if (env === undefined || env === '') return 8080;
  if (!/^\d+$/.test(env) || Number(env) > 65535)
    throw new CliError(`PORT must be a port number (got '${env}')`);
  return Number(env);
}

async function runServe(globals: GlobalOptions, opts: ServeOptions): Promise<void> {
  const port = portFrom(opts);
  const host = opts.host ?? (process.env.HOST || '127.0.0.1');
  if (opts.worker && !opts.jobs) throw new CliError('--worker needs --jobs (the definitions it runs)');
  const tokens = parseTokenList(process.env.MACHINIST_TOKENS ?? '');
  if (tokens.length === 0 && !LOOPBACK.has(host))
    throw new CliError(
      `set MACHINIST_TOKENS to serve on ${host}: without tokens the API is served on loopback only`,
    );
  const jobs: AnyDefinition[] | undefined = opts.jobs ? await loadJobs(opts.jobs) : undefined;
  const store = await openStore(globals, true, { commandTimeoutMs: opts.redisTimeoutMs });

  let app;
  let supervisor: Supervisor | undefined;
  try {
    app = createServer({
      store,
      jobs,
      queue: opts.queue,
      tokens,
      auth: tokens.length > 0,
      dashboard: opts.dashboard && { actions: opts.dashboardActions === true },
    });
    // The in-process supervisor's jobs and webhooks count in the server's /metrics.
    const metrics = serverMetrics(app);
    if (opts.worker && jobs)
      supervisor = new Supervisor({
        store,
        jobs,
        queue: opts.queue,
        concurrency: opts.concurrency,
        observers: metrics ? [metrics] : [],
      });
  } catch (err) {
    await store.close();
    throw new CliError((err as Error).message);
  }
  const server = app;

  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (++signals > 1) {
      console.error(`machinist serve: ${signal} again: exiting`);
      process.exit(EXIT_FORCED);
    }
    console.error(`machinist serve: ${signal}: stopping`);
    void (async () => {
      let code = 0;
      try {
        await server.close();
        if (supervisor) code = (await supervisor.stop({ graceMs: opts.graceMs })).forced ? EXIT_FORCED : 0;
      } catch (err) {
        console.error(`machinist serve: stop failed: ${(err as Error).message}`);
        code = 1;
      }
      await store.close();
      console.error('machinist serve: stopped');
      process.exit(code);
    })();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  try {
    await supervisor?.start();
    const url = await server.listen({ port, host });
    const what = jobs
      ? `machines ${jobs.map((d) => `${d.name}@${d.version}`).join(', ')}`
      : 'machines from the registry';
    console.log(
      `machinist serve listening on ${url} (${what}${supervisor ? `, worker on queue '${opts.queue}'` : ''}; ` +
        `redis ${safeUrl(globals.redis)} prefix '${globals.prefix}'${tokens.length === 0 ? '; NO AUTH: no MACHINIST_TOKENS' : ''})`,
    );
  } catch (err) {
    await server.close().catch(() => undefined);
    await supervisor?.stop({ graceMs: 0 }).catch(() => undefined);
    await store.close();
    throw new CliError(`serve failed to start: ${(err as Error).message}`);
  }
}
