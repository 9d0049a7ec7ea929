// `machinist serve`: the HTTP API on a port, until SIGTERM or SIGINT (actions/serve.ts).

import { Command } from 'commander';
import type { ServeOptions } from '../actions/serve.js';
import type { GlobalOptions } from '../connect.js';
import { integer } from '../parseOptions.js';
import { webhookAllowHostsOption } from '../webhookAllowHosts.js';

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
    .action(async (opts: ServeOptions) => (await import('../actions/serve.js')).runServe(globals(), opts));
}
