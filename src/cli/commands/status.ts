// `machinist status <id>`: one job's status, active states, timers, accepted events and last
// audit entries; `--watch` redraws it until the job finishes (actions/status.ts).

import { Command } from 'commander';
import type { StatusOptions } from '../actions/status.js';
import type { GlobalOptions } from '../connect.js';
import { integer } from '../parseOptions.js';

export function statusCommand(globals: () => GlobalOptions): Command {
  return new Command('status')
    .description("show a job's status, active states, pending timers, accepted events and last events")
    .argument('<id>', 'job id')
    .option('-q, --queue <name>', "the job's queue (default: looked up across queues)")
    .option('--json', 'print the whole job record as JSON')
    .option('-w, --watch', 'redraw as the job changes, until it finishes (Ctrl-C stops)')
    .option('--interval-ms <ms>', 'with --watch: how often to look', integer(50), 500)
    .option('-n, --events <n>', 'how many of the last audit entries to show', integer(0), 5)
    .action(async (id: string, opts: StatusOptions) =>
      (await import('../actions/status.js')).runStatus(globals(), id, opts),
    );
}
