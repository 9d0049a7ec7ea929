// `machinist worker`: runs a Supervisor for the jobs a module exports until SIGTERM or SIGINT
// (actions/worker.ts: the shutdown and its exit codes).

import { Command, Option } from 'commander';
import type { WorkerOptions } from '../actions/worker.js';
import type { GlobalOptions } from '../connect.js';
import { integer } from '../parseOptions.js';
import { webhookAllowHostsOption } from '../webhookAllowHosts.js';

export function workerCommand(globals: () => GlobalOptions): Command {
  return new Command('worker')
    .description('run a supervisor for the jobs a module exports, until SIGTERM/SIGINT')
    .requiredOption('--jobs <module>', 'ESM module exporting defineJob()/definePipeline() definitions')
    .option('-q, --queue <name>', 'queue to work', 'default')
    .option('-c, --concurrency <n>', 'jobs run at once', integer(1), 10)
    .option('--lease-ms <ms>', 'lease length', integer(1), 30_000)
    .option('--heartbeat-ms <ms>', 'lease extension interval (below --lease-ms)', integer(1), 10_000)
    .addOption(
      new Option('--reaper-interval-ms <ms>', 'longest wait between looks for expired leases').argParser(
        integer(1),
      ),
    )
    .addOption(
      new Option(
        '--max-lease-requeues <n>',
        'lease requeues a job may have (its worker died or stalled) before it fails with LEASE_EXPIRED (default 5)',
      ).argParser(integer(0)),
    )
    .option(
      '--grace-ms <ms>',
      'on SIGTERM/SIGINT, how long running jobs may finish before they are requeued',
      integer(0),
      30_000,
    )
    .option('--allow-eviction', 'start even if Redis maxmemory-policy may evict keys (risks losing jobs)')
    .option(
      '--accept-changed-machines <name@version...>',
      'start although these pipelines differ from the definitions registered for their versions',
    )
    .addOption(
      new Option(
        '--metrics-port <port>',
        'serve Prometheus metrics on GET /metrics at this port (0: any free port)',
      ).argParser(integer(0)),
    )
    .option('--metrics-host <host>', 'address the metrics port listens on', '127.0.0.1')
    .option('--max-payload-bytes <n>', 'largest job input it runs (default 1 MiB)', integer(1))
    .addOption(webhookAllowHostsOption())
    .addOption(
      new Option(
        '--log-format <format>',
        'log lines: readable (pretty) or JSON (default: pretty on a terminal, else json)',
      ).choices(['pretty', 'json']),
    )
    .addOption(
      new Option('--log-level <level>', 'least important level logged (env MACHINIST_LOG)')
        .choices(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'])
        .default(process.env.MACHINIST_LOG || 'info'),
    )
    .action(async (opts: WorkerOptions) => (await import('../actions/worker.js')).runWorker(globals(), opts));
}
