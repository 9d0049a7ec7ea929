// `machinist stats`: how many jobs each queue holds per status (one ZCARD per index).

import { Command } from 'commander';
import { COUNTED } from '../../store/types.js';
import { withBackend, type GlobalOptions } from '../connect.js';
import { json, table } from '../format.js';

export function statsCommand(globals: () => GlobalOptions): Command {
  return new Command('stats')
    .description('job counts per status for each queue (active = loading + working)')
    .option('-q, --queue <name>', 'only this queue (default: every queue)')
    .option('--json', 'print { queue: counts } as JSON')
    .action(async (opts: { queue?: string; json?: boolean }) => {
      await withBackend(globals(), async (backend) => {
        const all = await backend.counts(opts.queue);
        const queues = Object.keys(all);
        if (opts.json) return void console.log(json(all));
        if (queues.length === 0) return void console.log(`no queues (${backend.where})`);
        const rows = queues.map((q) => [q, ...COUNTED.map((c) => String(all[q]![c]))]);
        console.log(table(['QUEUE', ...COUNTED.map((c) => c.toUpperCase())], rows));
      });
    });
}
