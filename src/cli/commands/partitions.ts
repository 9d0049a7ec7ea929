// `machinist partitions <queue> <n>`: splits a queue into n partitions (docs/partitions.md),
// through the backend (a store's Client.configureQueue, or PUT /queues/:queue/partitions).

import { Command } from 'commander';
import { withBackend, type GlobalOptions } from '../connect.js';
import { CliError } from '../CliError.js';

export function partitionsCommand(globals: () => GlobalOptions): Command {
  return new Command('partitions')
    .description('split a queue into <n> partitions (refused while it holds jobs; docs/partitions.md)')
    .argument('<queue>', 'the queue')
    .argument('<n>', 'how many partitions (1 to 1024)')
    .action(async (queue: string, n: string) => {
      const partitions = Number(n);
      if (!/^\d+$/.test(n)) throw new CliError(`partitions must be a whole number (got '${n}')`);
      await withBackend(globals(), async (backend) => {
        await backend.configureQueue(queue, partitions);
        console.log(`queue '${queue}': ${partitions} partition${partitions === 1 ? '' : 's'}`);
      });
    });
}
