// `machinist stats`: how many jobs each queue holds per status (one ZCARD per index).

import { Command } from 'commander';
import { COUNTED, type QueueCounts } from '../../store/redis/listJobs.js';
import { withClient, type GlobalOptions } from '../connect.js';
import { json, table } from '../format.js';

export function statsCommand(globals: () => GlobalOptions): Command {
  return new Command('stats')
    .description('job counts per status for each queue (active = loading + working)')
    .option('-q, --queue <name>', 'only this queue (default: every queue)')
    .option('--json', 'print { queue: counts } as JSON')
    .action(async (opts: { queue?: string; json?: boolean }) => {
      await withClient(globals(), async (_client, store) => {
        const queues = opts.queue ? [opts.queue] : await store.queues();
        const all: Record<string, QueueCounts> = {};
        for (const q of queues) all[q] = await store.counts(q);
        if (opts.json) return void console.log(json(all));
        if (queues.length === 0) return void console.log(`no queues under prefix '${store.prefix}'`);
        const rows = queues.map((q) => [q, ...COUNTED.map((c) => String(all[q]![c]))]);
        console.log(table(['QUEUE', ...COUNTED.map((c) => c.toUpperCase())], rows));
      });
    });
}
