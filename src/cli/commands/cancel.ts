// `machinist cancel <id>`: cancels a job; a running one stops within one heartbeat.

import { Command } from 'commander';
import { withClient, type GlobalOptions } from '../connect.js';
import { CliError } from '../CliError.js';

export function cancelCommand(globals: () => GlobalOptions): Command {
  return new Command('cancel')
    .description('cancel a job (queued: at once; running: its signal fires within one heartbeat)')
    .argument('<id>', 'job id')
    .option('-q, --queue <name>', "the job's queue (default: looked up across queues)")
    .action(async (id: string, opts: { queue?: string }) => {
      await withClient(globals(), async (_client, store) => {
        const r = await store.cancel(id, opts.queue);
        if (r.result === 'finished')
          throw new CliError(`job ${id} has already finished (${r.status}); nothing to cancel`);
        console.log(
          r.result === 'cancelled'
            ? `cancelled ${id}`
            : `cancel requested for ${id} (${r.status}); its worker stops it`,
        );
      });
    });
}
