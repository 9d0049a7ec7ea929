// `machinist find [filter...]`: finds jobs by id prefix, machine, status, state, time range and
// fields of their input, context or output (`'input.orderId = 42'`), a bounded scan at a time
// (actions/find.ts; docs/cli.md).

import { Command } from 'commander';
import type { FindOptions } from '../actions/find.js';
import type { GlobalOptions } from '../connect.js';
import { integer, status, timeMs } from '../parseOptions.js';

export function findCommand(globals: () => GlobalOptions): Command {
  return new Command('find')
    .description(
      "find jobs: filters like 'input.orderId = 42' (ops = != > >= < <= contains startsWith), all must hold",
    )
    .argument(
      '[filter...]',
      "'<path> <op> <value>', the path from input, context, output, progress, state, error",
    )
    .option('-q, --queue <name>', 'only this queue (default: every queue)')
    .option('--id <prefix>', 'ids starting with this')
    .option('-m, --machine <name>', 'only jobs of this machine')
    .option(
      '-s, --status <status>',
      'queued | loading | working | waiting | done | failed | cancelled',
      status,
    )
    .option('--state <path>', "in this state (a state path, 'review.waiting', or a prefix of one)")
    .option('--created-from <time>', 'created at or after (ms or ISO 8601)', timeMs)
    .option('--created-to <time>', 'created at or before', timeMs)
    .option('--updated-from <time>', 'updated at or after', timeMs)
    .option('--updated-to <time>', 'updated at or before', timeMs)
    .option('-n, --limit <n>', 'at most this many matches per call (1-500)', integer(1), 50)
    .option('--scan <n>', 'read at most this many records per call (1-10000)', integer(1), 1000)
    .option('--cursor <cursor>', 'continue from the cursor a previous call printed')
    .option('--all', 'follow the cursor to the end of every index')
    .option('--json', 'print { jobs, cursor, scanned } as JSON')
    .action(async (filters: string[], opts: FindOptions) =>
      (await import('../actions/find.js')).runFind(globals(), filters, opts),
    );
}
