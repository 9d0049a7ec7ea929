// `machinist events <id>`: a job's audit log, oldest first.

import { Command } from 'commander';
import { withClient, type GlobalOptions } from '../connect.js';
import { json, time } from '../format.js';

export function eventsCommand(globals: () => GlobalOptions): Command {
  return new Command('events')
    .description("print a job's audit log (every transition, oldest first)")
    .argument('<id>', 'job id')
    .option('-q, --queue <name>', "the job's queue (default: looked up across queues)")
    .option('--json', 'print the entries as JSON')
    .action(async (id: string, opts: { queue?: string; json?: boolean }) => {
      await withClient(globals(), async (client) => {
        const log = await client.events(id, { queue: opts.queue });
        if (opts.json) return void console.log(json(log));
        for (const { at, type, ...rest } of log) {
          const extra = Object.keys(rest).length ? `  ${JSON.stringify(rest)}` : '';
          console.log(`${time(at)}  ${type}${extra}`);
        }
      });
    });
}
