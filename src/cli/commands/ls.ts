// `machinist ls`: jobs of a queue, filtered by status and machine, newest activity first within
// each status.

import { Command } from 'commander';
import type { JobStatus } from '../../store/types.js';
import { withBackend, type GlobalOptions } from '../connect.js';
import { integer, status } from '../parseOptions.js';
import { json, table, time, value } from '../format.js';

interface LsOptions {
  queue: string;
  status?: JobStatus;
  machine?: string;
  limit: number;
  cursor?: string;
  json?: boolean;
}

export function lsCommand(globals: () => GlobalOptions): Command {
  return new Command('ls')
    .description('list jobs of a queue')
    .option('-q, --queue <name>', 'queue', 'default')
    .option(
      '-s, --status <status>',
      'queued | loading | working | waiting | done | failed | cancelled',
      status,
    )
    .option('-m, --machine <name>', 'only jobs of this machine')
    .option('-n, --limit <n>', 'at most this many jobs (1-1000)', integer(1), 50)
    .option('--cursor <cursor>', 'continue from the cursor a previous page printed')
    .option('--json', 'print { jobs, cursor } as JSON')
    .action(async (opts: LsOptions) => {
      await withBackend(globals(), async (backend) => {
        const page = await backend.list({
          queue: opts.queue,
          status: opts.status,
          machine: opts.machine,
          limit: Math.min(opts.limit, 1000),
          cursor: opts.cursor,
        });
        if (opts.json) return void console.log(json(page));
        if (page.jobs.length === 0) console.log('no jobs');
        else {
          const rows = page.jobs.map((j) => [
            j.id,
            j.machine,
            j.status,
            value(j.state, 30),
            `${j.attempts}/${j.maxAttempts}`,
            j.priority,
            time(j.updatedAt),
          ]);
          console.log(table(['ID', 'MACHINE', 'STATUS', 'STATE', 'ATTEMPTS', 'PRIORITY', 'UPDATED'], rows));
        }
        if (page.cursor) console.log(`more: --cursor ${page.cursor}`);
      });
    });
}
