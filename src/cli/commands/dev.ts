// `machinist dev` (`npm start`): Machinist on one machine with nothing installed (actions/dev.ts).

import { Command } from 'commander';
import type { DevOptions } from '../actions/dev.js';
import type { GlobalOptions } from '../connect.js';
import { integer } from '../parseOptions.js';
import { webhookAllowHostsOption } from '../webhookAllowHosts.js';

export function devCommand(globals: () => GlobalOptions): Command {
  return new Command('dev')
    .description(
      'run Machinist with the example pipelines: HTTP API, dashboard, a worker and demo jobs ' +
        '(Redis at REDIS_URL, else an in-memory store)',
    )
    .option('--port <port>', 'port to listen on (env PORT; default 8080, else a free one)', integer(0))
    .option('--host <host>', 'address to listen on (env HOST; default 127.0.0.1)')
    .option('--data <file>', 'without Redis: keep the jobs in this file across restarts')
    .option('--no-seed', 'enqueue no demo jobs')
    .addOption(webhookAllowHostsOption())
    .action(async (opts: DevOptions) => (await import('../actions/dev.js')).runDev(globals(), opts));
}
