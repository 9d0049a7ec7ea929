// `machinist migrate-store`: takes a Redis store's data format to the version this Machinist
// reads, one numbered migration at a time (docs/data-format.md). Run with the workers stopped
// when a step is marked breaking; `--dry-run` checks and reports, and writes nothing.

import { Command } from 'commander';
import { migrateStore } from '../../store/redis/formatOps.js';
import { openStore, redisLabel, type GlobalOptions } from '../connect.js';
import { json } from '../format.js';

export function migrateStoreCommand(globals: () => GlobalOptions): Command {
  return new Command('migrate-store')
    .description("bring the store's data format up to this version (docs/data-format.md)")
    .option('--dry-run', 'check and print the steps; write nothing')
    .option('--json', 'print the report as JSON')
    .action(async (opts: { dryRun?: boolean; json?: boolean }) => {
      const g = globals();
      const store = await openStore(g);
      try {
        const report = await migrateStore(store.redis, store.prefix, opts.dryRun === true);
        if (opts.json) return void console.log(json(report));
        const where = `Redis at ${redisLabel(g)}, prefix '${store.prefix}'`;
        const would = report.dryRun ? 'would be' : 'is';
        if (report.from === null) console.log(`${where}: empty; ${would} stamped with format ${report.to}`);
        else if (report.steps.length === 0)
          console.log(`${where}: format ${report.from}, current; nothing to do`);
        else {
          console.log(
            `${where}: format ${report.from} -> ${report.to}${report.dryRun ? ' (dry run: nothing written)' : ''}`,
          );
          for (const s of report.steps)
            console.log(`  ${s.to}: ${s.description}${s.breaking ? ' [breaking]' : ''}\n     ${s.note}`);
        }
      } finally {
        await store.close();
      }
    });
}
