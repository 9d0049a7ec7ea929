// `machinist migrate-store`: the store's data format up to this version, then optionally a copy
// to another Redis or a queue partitioned (actions/migrateStore.ts; docs/data-format.md).

import { Command } from 'commander';
import type { MigrateOptions } from '../actions/migrateStore.js';
import { CliError } from '../CliError.js';
import type { GlobalOptions } from '../connect.js';

export function migrateStoreCommand(globals: () => GlobalOptions): Command {
  return new Command('migrate-store')
    .description("bring the store's data format up to this version (docs/data-format.md)")
    .option('--dry-run', 'check and print the steps; write nothing')
    .option('--json', 'print the report as JSON')
    .option('--to <url>', 'then copy the deployment to the Redis at this URL (an empty one)')
    .option(
      '--to-cluster <nodes>',
      'then copy the deployment to this Redis Cluster (host:port,... of its nodes)',
    )
    .option('--partition <queue>', 'then partition this queue, jobs and all (with --partitions)')
    .option('--partitions <n>', 'how many partitions --partition makes', parseCount)
    .action(async (opts: MigrateOptions) =>
      (await import('../actions/migrateStore.js')).runMigrateStore(globals(), opts),
    );
}

function parseCount(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n))
    throw new CliError(`--partitions takes a whole number (got '${text}')`);
  return n;
}
