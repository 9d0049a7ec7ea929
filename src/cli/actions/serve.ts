// What `machinist serve` does (its options: commands/serve.ts): the HTTP API (createServer) on a
// port, until SIGTERM or SIGINT (runServer.ts: tokens, loopback without them, shutdown). With
// --jobs it knows the definitions (charts, input checks) without asking the registry; with --worker
// it also runs a supervisor for them in the same process.

import type { AnyDefinition } from '../../runtime/registry.js';
import { openStore, redisLabel, type GlobalOptions } from '../connect.js';
import { loadJobs } from '../loadJobs.js';
import { loadTriggers } from '../loadTriggers.js';
import { CliError } from '../CliError.js';
import { listenAddress, runServer } from '../runServer.js';

export interface ServeOptions {
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

export async function runServe(globals: GlobalOptions, opts: ServeOptions): Promise<void> {
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
